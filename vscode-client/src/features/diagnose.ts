// Denpex: Diagnose Selection / Diagnose File.
import * as vscode from 'vscode';
import { DenpexContext } from '../context';
import { Report } from '../protocol';

export function summarize(report: Report): string {
  if (!report.findings.length) return 'denpex: no known failure found in the selection.';
  const first = report.findings[0];
  const more = report.findings.length > 1 ? ` (+${report.findings.length - 1} more)` : '';
  return `denpex: ${first.title}${first.role === 'root' ? ' (root cause)' : ''}${more}`;
}

export async function showSummary(ctx: DenpexContext, report: Report): Promise<void> {
  const choice = await vscode.window.showInformationMessage(summarize(report), ...(report.findings.length ? ['Show Report', 'Problems'] : []));
  if (choice === 'Show Report') await vscode.commands.executeCommand('denpex.showReport');
  if (choice === 'Problems') await vscode.commands.executeCommand('workbench.actions.view.problems');
  void ctx;
}

export function activate(ctx: DenpexContext): void {
  ctx.subscribe(
    vscode.commands.registerCommand('denpex.diagnoseSelection', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showErrorMessage('denpex: open a log or a traceback and select it first.');
        return;
      }
      const sel = editor.selection;
      const range = sel.isEmpty ? undefined : { start: sel.start, end: sel.end };
      const report = await ctx.diagnose({ uri: editor.document.uri.toString(), range });
      await showSummary(ctx, report);
    }),
    vscode.commands.registerCommand('denpex.diagnoseFile', async (uri?: vscode.Uri) => {
      let target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target) {
        const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Diagnose', filters: { Logs: ['log', 'out', 'err', 'txt'], All: ['*'] } });
        target = picked?.[0];
      }
      if (!target) return;
      const doc = await vscode.workspace.openTextDocument(target);
      await vscode.window.showTextDocument(doc, { preview: false });
      const report = await ctx.diagnose({ uri: doc.uri.toString() });
      await showSummary(ctx, report);
    }),
  );
}
