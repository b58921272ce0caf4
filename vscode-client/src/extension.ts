// Activation only: the context owns the client and every disposable; each feature file
// registers its own commands.
import * as vscode from 'vscode';
import { DenpexContext } from './context';
import * as diagnose from './features/diagnose';
import * as explain from './features/explain';
import * as report from './features/report';
import * as terminal from './features/terminal';

let ctx: DenpexContext | undefined;

export async function activate(extension: vscode.ExtensionContext): Promise<void> {
  ctx = new DenpexContext(extension);
  extension.subscriptions.push(ctx);
  diagnose.activate(ctx);
  terminal.activate(ctx);
  report.activate(ctx);
  explain.activate(ctx);
  await ctx.start();
}

export async function deactivate(): Promise<void> {
  await ctx?.stop();
  ctx = undefined;
}
