// Denpex: Diagnose Terminal Selection / Diagnose Last Terminal Command. Terminal output that is
// not a file opens as a `denpex-log` document, so diagnostics, hovers and quick fixes work on it.
import * as vscode from 'vscode';
import { DenpexContext } from '../context';
import { CommandOutputs, cleanTerminalText } from '../terminal_text';
import { showSummary } from './diagnose';

async function openAsLog(ctx: DenpexContext, text: string, origin: string): Promise<void> {
  // VS Code titles an untitled document by its first line: say what this one is.
  const doc = await vscode.workspace.openTextDocument({ language: 'denpex-log', content: `# denpex: ${origin}\n${text}` });
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
