// Denpex: Diagnose Selection / Diagnose File / Diagnose Folder.
import * as path from 'path';
import * as vscode from 'vscode';
import { DenpexContext } from '../context';
import { Report } from '../protocol';

// The biggest file VS Code synchronises to extensions (50 MB).
const kEditorSyncLimit = 50 * 1024 * 1024;

export function summarize(report: Report): string {
  if (!report.findings.length) return 'denpex: no known failure found in the selection.';
  const first = report.findings[0];
  const more = report.findings.length > 1 ? ` (+${report.findings.length - 1} more)` : '';
  return `denpex: ${first.title}${first.role === 'root' ? ' (root cause)' : ''}${more}`;
}

export async function showSummary(ctx: DenpexContext, report: Report): Promise<void> {
  const choice = await vscode.window.showInformationMessage(summarize(report), ...(report.findings.length ? ['Show Report', 'Problems'] : []));
  if (choice === 'Show Report') await vscode.commands.executeCommand('denpex.showReport');
  if (choice === 'Problems') await vscode.commands.executeCommand('workbench.panel.markers.view.focus');
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
      if (report) await showSummary(ctx, report);
    }),
    // A file is diagnosed by its URI: the server reads it from disk, so logs over the 50 MB that
    // VS Code hands to extensions work too. The findings are published on the file.
    vscode.commands.registerCommand('denpex.diagnoseFile', async (uri?: vscode.Uri) => {
      let target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      if (!target) {
        const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Diagnose', filters: { Logs: ['log', 'out', 'err', 'txt'], All: ['*'] } });
        target = picked?.[0];
      }
      if (!target) return;
      const report = await ctx.diagnose({ uri: target.toString() }, `denpex: diagnosing ${path.basename(target.path)}`);
      if (!report) return;
      // A log VS Code would hand over opens in the editor; a bigger one stays closed (opening
      // 100 MB is the user's call): its findings are in the Problems panel, a click away.
      const size = (await vscode.workspace.fs.stat(target)).size;
      if (size <= kEditorSyncLimit) await vscode.commands.executeCommand('vscode.open', target, { preview: false });
      await showSummary(ctx, report);
    }),
    // A folder of per-rank logs (torchrun --log_dir, one file per rank): one run, its incident,
    // and each rank's findings on its own file.
    vscode.commands.registerCommand('denpex.diagnoseFolder', async (uri?: vscode.Uri) => {
      let target = uri instanceof vscode.Uri ? uri : undefined;
      if (!target) {
        const picked = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Diagnose' });
        target = picked?.[0];
      }
      if (!target) return;
      const report = await ctx.diagnose({ folder: target.toString() }, `denpex: diagnosing ${path.basename(target.path)}`);
      if (!report) return;
      await vscode.commands.executeCommand('workbench.panel.markers.view.focus');
      await showSummary(ctx, report);
    }),
  );
}
