// The extension's state: the language client, the output channel, the status bar item, the
// reports of the last diagnoses, and every disposable. Features receive it in activate(ctx).
import * as fs from 'fs';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, LSPErrorCodes, ResponseError, State, WorkDoneProgress } from 'vscode-languageclient/node';
import { readConfig } from './config';
import { bundledServerPath, initializationOptions } from './config_values';
import { checkReport, Commands, DiagnoseArgs, Report } from './protocol';

export class DenpexContext implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  // One trace channel for the extension's life, however often the server restarts.
  private readonly trace: vscode.OutputChannel;
  // Scoped to log documents (where it matters), not always in the status bar.
  readonly status: vscode.LanguageStatusItem;
  readonly reports = new Map<string, Report>(); // document uri -> the last report made for it
  private client: LanguageClient | undefined;
  private restarts: Promise<void> = Promise.resolve();
  private progressTokens = 0;
  private queuedRestart: Promise<void> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('denpex');
    this.trace = vscode.window.createOutputChannel('denpex (trace)');
    this.status = vscode.languages.createLanguageStatusItem('denpex.server', [{ language: 'log' }, { language: 'denpex-log' }]);
    this.status.name = 'denpex language server';
    this.status.command = { command: 'denpex.showOutput', title: 'Show Logs' };
    this.setStatus('starting');
    this.subscribe(this.output, this.trace, this.status,
      vscode.commands.registerCommand('denpex.showOutput', () => this.output.show(true)));
    // Trust granted later: start again, so the server loads the workspace's rules.
    this.subscribe(vscode.workspace.onDidGrantWorkspaceTrust(() => { if (this.client) void this.restart(); }));
  }

  subscribe(...items: vscode.Disposable[]): void { this.disposables.push(...items); }

  private setStatus(state: 'starting' | 'running' | 'stopped' | 'failed'): void {
    const icon = { starting: '$(sync~spin)', running: '$(pulse)', stopped: '$(circle-slash)', failed: '$(error)' }[state];
    this.status.text = `${icon} denpex`;
    this.status.detail = `server ${state}`;
    this.status.busy = state === 'starting';
    this.status.severity = state === 'failed' ? vscode.LanguageStatusSeverity.Error
      : state === 'stopped' ? vscode.LanguageStatusSeverity.Warning : vscode.LanguageStatusSeverity.Information;
  }

  serverPath(): string {
    const { config } = readConfig();
    return config.serverPath || bundledServerPath(this.extension.extensionPath, process.platform);
  }

  async start(): Promise<void> {
    const { config, problems } = readConfig();
    for (const p of problems) void vscode.window.showWarningMessage(p);
    const command = this.serverPath();
    if (!fs.existsSync(command)) {
      this.setStatus('failed');
      void vscode.window.showErrorMessage(`denpex: no server binary at ${command}. Set "denpex.server.path" to a built denpex.`);
      return;
    }
    this.client = new LanguageClient(
      'denpex',
      'denpex',
      { command, args: ['lsp', '--stdio'] },
      {
        // Every file and unsaved document is synced: fixes are computed from open buffers, and
        // any selection can be diagnosed. The server diagnoses only logs on its own.
        documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }, { scheme: 'denpex-output' }],
        outputChannel: this.output,
        traceOutputChannel: this.trace,
        initializationOptions: initializationOptions(config, vscode.workspace.isTrusted),
        synchronize: { configurationSection: 'denpex' },
        middleware: {
          // The explain lens names the server's own command (so that any client can run it); here
          // it opens the rule's entry as a rendered preview instead of returning its Markdown.
          executeCommand: async (command, args, next) =>
            command === Commands.explain && typeof args[0] === 'string'
              ? vscode.commands.executeCommand('denpex.explainRule', args[0])
              : next(command, args),
        },
      },
    );
    this.client.onDidChangeState((e) => {
      this.setStatus(e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped');
    });
    try {
      await this.client.start();
    } catch (err) {
      this.setStatus('failed');
      void vscode.window.showErrorMessage(`denpex: the language server did not start: ${String(err)}`);
    }
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await c.stop();
    this.setStatus('stopped');
  }

  // Restarts run one at a time: granting trust, for example, both fires the trust event and
  // changes the effective server path, and two overlapping restarts would start two clients
  // that register the same commands. A restart asked for while another waits to begin joins it;
  // one asked for while another runs is queued, so it reads the newest settings.
  restart(): Promise<void> {
    if (this.queuedRestart) return this.queuedRestart;
    const run = this.restarts.then(async () => {
      this.queuedRestart = undefined;
      await this.stop();
      await this.start();
    });
    this.queuedRestart = run;
    this.restarts = run.catch(() => undefined);
    return run;
  }

  private requireClient(): LanguageClient {
    if (!this.client || !this.client.isRunning()) throw new Error('denpex: the language server is not running (see the "denpex" output)');
    return this.client;
  }

  async execute<T>(command: string, args: unknown[]): Promise<T> {
    return (await this.requireClient().sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  // Diagnoses on the server. With a `title` (a file or a folder read from disk, which may take
  // seconds) a progress notification shows the server's $/progress and can cancel the request.
  // Undefined when the user cancelled.
  async diagnose(args: DiagnoseArgs, title?: string): Promise<Report | undefined> {
    const client = this.requireClient();
    const run = async (progress?: vscode.Progress<{ message?: string; increment?: number }>, cancel?: vscode.CancellationToken) => {
      const workDoneToken = `denpex-diagnose-${++this.progressTokens}`;
      let done = 0;
      const listening = progress
        ? client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
          if (value.kind !== 'report' || typeof value.percentage !== 'number') return;
          progress.report({ increment: value.percentage - done, message: value.message });
          done = value.percentage;
        })
        : undefined;
      try {
        const params = { command: Commands.diagnose, arguments: [args], ...(progress ? { workDoneToken } : {}) };
        return checkReport(await client.sendRequest(ExecuteCommandRequest.type, params, cancel));
      } finally {
        listening?.dispose();
      }
    };
    let report: Report;
    try {
      report = title
        ? await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (p, t) => run(p, t))
        : await run();
    } catch (err) {
      if (err instanceof vscode.CancellationError || (err instanceof ResponseError && err.code === LSPErrorCodes.RequestCancelled)) return undefined;
      throw err;
    }
    if ('uri' in args) this.reports.set(args.uri, report);
    return report;
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
