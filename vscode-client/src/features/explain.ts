// Denpex: Explain Rule: any rule's full entry as rendered Markdown.
import * as vscode from 'vscode';
import { DenpexContext } from '../context';
import { Commands, RuleSummary } from '../protocol';

export function activate(ctx: DenpexContext): void {
  ctx.subscribe(
    vscode.commands.registerCommand('denpex.explainRule', async (ruleId?: string) => {
      let id = typeof ruleId === 'string' ? ruleId : undefined;
      if (!id) {
        const rules = await ctx.execute<RuleSummary[]>(Commands.rules, []);
        const pick = await vscode.window.showQuickPick(
          rules.map((r) => ({ label: r.title, description: r.id, detail: r.category, id: r.id })),
          { placeHolder: 'Explain which failure?', matchOnDescription: true },
        );
        id = pick?.id;
      }
      if (!id) return;
      const markdown = await ctx.execute<string>(Commands.explain, [id]);
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
      await vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, async () => {
        await vscode.window.showTextDocument(doc, { preview: true });
      });
    }),
    vscode.commands.registerCommand('denpex.restartServer', async () => {
      await ctx.restart();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('denpex.server.path')) await ctx.restart();
    }),
  );
}
