// Denpex: Diagnose Terminal Selection / Diagnose Last Terminal Command. Terminal output opens as
// a read-only document of its own (a `denpex-output:` URI named `<origin> N.log`, so the server
// diagnoses it as a log): diagnostics, hovers and quick fixes work on it, and nothing asks to
// save it.
import * as vscode from 'vscode';
import { DenpexContext } from '../context';
import { CommandOutputs, cleanTerminalText } from '../terminal_text';
import { showSummary } from './diagnose';

export const kOutputScheme = 'denpex-output';

// The texts of the output documents, by URI, while they are open.
class OutputDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private count = 0;
  provideTextDocumentContent(uri: vscode.Uri): string { return this.texts.get(uri.toString()) ?? ''; }
  add(origin: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: kOutputScheme, path: `/${origin} ${++this.count}.log` });
    this.texts.set(uri.toString(), text);
    return uri;
  }
  forget(uri: vscode.Uri): void { this.texts.delete(uri.toString()); }
}

const documents = new OutputDocuments();

async function openAsLog(ctx: DenpexContext, text: string, origin: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(documents.add(origin, text));
  await vscode.window.showTextDocument(doc, { preview: false });
  // The server diagnoses denpex-log documents itself; the report is for the summary.
  const report = await ctx.diagnose({ text, name: 'terminal output' });
  if (report) await showSummary(ctx, report);
}

/** Copies the terminal's selection through the clipboard and puts the user's clipboard back. */
async function terminalSelection(): Promise<string> {
  const saved = await vscode.env.clipboard.readText();
  try {
    await vscode.env.clipboard.writeText('');
    await vscode.commands.executeCommand('workbench.action.terminal.copySelection');
    return await vscode.env.clipboard.readText();
  } finally {
    await vscode.env.clipboard.writeText(saved);
  }
}

export function activate(ctx: DenpexContext): void {
  const outputs = new CommandOutputs<vscode.Terminal>();
  const reading = new Map<vscode.Terminal, Promise<void>>();
  ctx.subscribe(
    vscode.workspace.registerTextDocumentContentProvider(kOutputScheme, documents),
    vscode.workspace.onDidCloseTextDocument((doc) => { if (doc.uri.scheme === kOutputScheme) documents.forget(doc.uri); }),
    vscode.window.onDidStartTerminalShellExecution((e) => {
      outputs.start(e.terminal, e.execution.commandLine.value);
      reading.set(e.terminal, (async () => {
        for await (const data of e.execution.read()) outputs.append(e.terminal, data);
      })());
    }),
    vscode.window.onDidEndTerminalShellExecution(async (e) => {
      await reading.get(e.terminal);
      outputs.end(e.terminal, e.exitCode);
    }),
    vscode.window.onDidCloseTerminal((t) => { outputs.forget(t); reading.delete(t); }),
    vscode.commands.registerCommand('denpex.diagnoseTerminalSelection', async () => {
      if (!vscode.window.activeTerminal) {
        void vscode.window.showErrorMessage('denpex: no terminal is open.');
        return;
      }
      const text = cleanTerminalText(await terminalSelection());
      if (!text.trim()) {
        void vscode.window.showErrorMessage('denpex: select some output in the terminal first.');
        return;
      }
      await openAsLog(ctx, text, 'terminal selection');
    }),
    vscode.commands.registerCommand('denpex.diagnoseLastTerminalCommand', async () => {
      const terminal = vscode.window.activeTerminal;
      if (!terminal) {
        void vscode.window.showErrorMessage('denpex: no terminal is open.');
        return;
      }
      if (!terminal.shellIntegration) {
        void vscode.window.showErrorMessage(
          'denpex: shell integration is not active in this terminal, so its last command cannot be read. ' +
            'Enable "terminal.integrated.shellIntegration.enabled", open a new bash, zsh, fish or pwsh terminal, ' +
            'or select the output and run "Denpex: Diagnose Terminal Selection".');
        return;
      }
      const last = outputs.last(terminal);
      if (!last) {
        void vscode.window.showInformationMessage('denpex: no command has finished in this terminal since denpex started.');
        return;
      }
      const status = last.exitCode === undefined ? '' : ` (exit code ${last.exitCode})`;
      await openAsLog(ctx, `$ ${last.command}${status}\n${last.output}`, 'last terminal command');
    }),
  );
}
