// Denpex: Show Report: a panel with the verdict, ranks, evidence (linked to its lines), the fix
// with an Apply button and the verify command with a Copy button.
import * as crypto from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';
import { DenpexContext } from '../context';
import { Edit, Report } from '../protocol';
import { reportHtml } from '../report_html';

async function applyEdit(edit: Edit): Promise<void> {
  const uri = vscode.Uri.file(path.resolve(edit.file));
  const we = new vscode.WorkspaceEdit();
  for (const c of edit.changes) {
    // The report's lines and columns are 1-based, columns in UTF-16 units like VS Code's.
    const range = new vscode.Range(c.start.line - 1, c.start.column - 1, c.end.line - 1, c.end.column - 1);
    we.replace(uri, range, c.new_text);
  }
  if (!(await vscode.workspace.applyEdit(we))) throw new Error(`denpex: could not apply "${edit.title}"`);
  await vscode.window.showTextDocument(uri, { preview: false });
}

export function activate(ctx: DenpexContext): void {
  ctx.subscribe(
    vscode.commands.registerCommand('denpex.showReport', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showErrorMessage('denpex: open a diagnosed log first.');
        return;
      }
      const doc = editor.document;
      const key = doc.uri.toString();
      // Always a fresh diagnosis: edits made since (a quick fix applied) change what applies.
      const report: Report | undefined = await ctx.diagnose({ uri: key });
      if (!report) return;
      const panel = vscode.window.createWebviewPanel('denpex.report', `denpex: ${path.basename(doc.uri.path)}`, vscode.ViewColumn.Beside, {
        enableScripts: true,
      });
      const nonce = crypto.randomBytes(16).toString('hex');
      panel.webview.html = reportHtml(report, path.basename(doc.uri.path), nonce, panel.webview.cspSource);
      panel.webview.onDidReceiveMessage(async (msg: { type: string; line?: number; finding?: number; edit?: number; text?: string }) => {
        try {
          if (msg.type === 'reveal' && typeof msg.line === 'number') {
            const shown = await vscode.window.showTextDocument(doc, { viewColumn: editor.viewColumn, preserveFocus: false });
            const pos = new vscode.Position(msg.line, 0);
            shown.selection = new vscode.Selection(pos, pos);
            shown.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenter);
          } else if (msg.type === 'apply' && msg.finding !== undefined && msg.edit !== undefined) {
            // The panel may be older than the file: plan the edit again from the current text.
            const shown = report.findings[msg.finding]?.edits[msg.edit];
            const fresh = await ctx.diagnose({ uri: key });
            const edit = fresh?.findings
              .filter((f) => f.rule === report.findings[msg.finding!]?.rule)
              .flatMap((f) => f.edits)
              ?.find((e) => e.file === shown?.file && e.title.split(' (')[0] === shown?.title.split(' (')[0]);
            if (edit?.applicable) await applyEdit(edit);
            else void vscode.window.showInformationMessage(`denpex: nothing to apply: ${edit?.reason ?? 'the fix no longer applies'}`);
          } else if (msg.type === 'copy' && msg.text) {
            await vscode.env.clipboard.writeText(msg.text);
            void vscode.window.showInformationMessage('denpex: verify command copied.');
          }
        } catch (err) {
          void vscode.window.showErrorMessage(String(err));
        }
      }, undefined, ctx.extension.subscriptions);
    }),
  );
}
