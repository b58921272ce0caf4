// The same flow as the Neovim test, driven from Node with the vscode-languageserver-protocol
// client library (what vscode-languageclient is built on) over `denpex lsp`'s stdio.
// Run by ctest with DENPEX_BINARY set; `node --test tests/clients/node/` by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter,
  InitializeRequest, InitializedNotification, DidOpenTextDocumentNotification,
  PublishDiagnosticsNotification, HoverRequest, CodeActionRequest, ExecuteCommandRequest,
  ShutdownRequest, ExitNotification,
} from 'vscode-languageserver-protocol/node.js';

const here = dirname(fileURLToPath(import.meta.url));
const source = resolve(here, '../../..');
const binary = process.env.DENPEX_BINARY ?? join(source, 'build/denpex');

function applyEdits(text, edits) {
  // UTF-16 positions, as negotiated (this client offers no other encoding).
  const lines = text.split('\n');
  const offset = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const spans = edits.map((e) => [offset(e.range.start), offset(e.range.end), e.newText]).sort((a, b) => b[0] - a[0]);
  for (const [b, e, t] of spans) text = text.slice(0, b) + t + text.slice(e);
  return text;
}

test('diagnose, hover and quick fix through vscode-languageserver-protocol', async () => {
  const work = mkdtempSync(join(tmpdir(), 'denpex-node-'));
  try {
    for (const f of ['train.py', 'fp16_adamw_cpu.py', 'train.log']) cpSync(join(source, 'examples/fp16-adamw', f), join(work, f));
    const child = spawn(binary, ['lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const published = new Promise((resolveDiagnostics) => {
      connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
        if (p.uri.endsWith('/train.log') && p.diagnostics.length > 0) resolveDiagnostics(p);
      });
    });
    connection.listen();

    const rootUri = pathToFileURL(work).href;
    const init = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: 'ws' }],
      capabilities: { workspace: { workspaceEdit: { documentChanges: true } }, textDocument: { codeAction: { disabledSupport: true } } },
    });
    assert.equal(init.capabilities.positionEncoding, 'utf-16');
    await connection.sendNotification(InitializedNotification.type, {});

    const logUri = pathToFileURL(join(work, 'train.log')).href;
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: logUri, languageId: 'log', version: 1, text: readFileSync(join(work, 'train.log'), 'utf8') },
    });
    const diagnostics = (await published).diagnostics;
    assert.deepEqual(diagnostics.map((x) => x.code), ['adamw-eps-fp16-underflow', 'nan-loss']);
    const [d] = diagnostics; // the root cause comes first, then its symptom
    assert.equal(d.code, 'adamw-eps-fp16-underflow');
    assert.equal(d.range.start.line, 16);

    const hover = await connection.sendRequest(HoverRequest.type, { textDocument: { uri: logUri }, position: { line: 16, character: 0 } });
    assert.match(hover.contents.value, /Root cause/);
    assert.match(hover.contents.value, /param_groups\[0\]\['eps'\]/);

    const actions = await connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: logUri }, range: d.range, context: { diagnostics: [d] },
    });
    assert.equal(actions.length, 1);
    assert.equal(actions[0].title, 'Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)');
    assert.equal(actions[0].isPreferred, true);
    const [change] = actions[0].edit.documentChanges;
    assert.equal(change.textDocument.uri, pathToFileURL(join(work, 'train.py')).href);
    const trainPy = join(work, 'train.py');
    writeFileSync(trainPy, applyEdits(readFileSync(trainPy, 'utf8'), change.edits));
    assert.match(readFileSync(trainPy, 'utf8'), /optimizer = torch\.optim\.AdamW\(model\.parameters\(\), lr=1e-3, eps=1e-5\)\n/);
    execFileSync('python3', ['-m', 'py_compile', trainPy]);

    const explained = await connection.sendRequest(ExecuteCommandRequest.type, { command: 'denpex.explain', arguments: ['adamw-eps-fp16-underflow'] });
    assert.match(explained, /## How to confirm/);

    await connection.sendRequest(ShutdownRequest.type);
    const exited = new Promise((r) => child.on('exit', (code) => r(code)));
    await connection.sendNotification(ExitNotification.type);
    assert.equal(await exited, 0);
    connection.dispose();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

// The recorded 4-rank seed failure (tests/distributed/seed-tee) through the real server binary:
// the eps finding leads, names rank 2, and its quick fix edits the script the traceback names.
test('the recorded multi-rank seed failure gets the eps fix over stdio', async () => {
  const work = mkdtempSync(join(tmpdir(), 'denpex-node-'));
  try {
    mkdirSync(join(work, 'examples/distributed'), { recursive: true });
    cpSync(join(source, 'examples/distributed/seed_worker.py'), join(work, 'examples/distributed/seed_worker.py'));
    cpSync(join(source, 'tests/distributed/seed-tee/torchrun.log'), join(work, 'torchrun.log'));
    const child = spawn(binary, ['lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const published = new Promise((resolveDiagnostics) => {
      connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
        if (p.uri.endsWith('/torchrun.log') && p.diagnostics.length > 0) resolveDiagnostics(p);
      });
    });
    connection.listen();
    const rootUri = pathToFileURL(work).href;
    await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: 'ws' }],
      capabilities: { workspace: { workspaceEdit: { documentChanges: true } } },
    });
    await connection.sendNotification(InitializedNotification.type, {});
    const logUri = pathToFileURL(join(work, 'torchrun.log')).href;
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: logUri, languageId: 'log', version: 1, text: readFileSync(join(work, 'torchrun.log'), 'utf8') },
    });
    const { diagnostics } = await published;
    assert.deepEqual(diagnostics.map((x) => x.code), ['adamw-eps-fp16-underflow', 'nan-loss', 'gloo-connection-closed', 'torchrun-child-failed']);
    const [d] = diagnostics;
    assert.match(d.message, /\[rank 2 failed first\]/);
    const actions = await connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: logUri }, range: d.range, context: { diagnostics: [d] },
    });
    assert.equal(actions.length, 1);
    const [change] = actions[0].edit.documentChanges;
    const script = join(work, 'examples/distributed/seed_worker.py');
    assert.equal(change.textDocument.uri, pathToFileURL(script).href);
    writeFileSync(script, applyEdits(readFileSync(script, 'utf8'), change.edits));
    assert.match(readFileSync(script, 'utf8'), /optimizer = torch\.optim\.AdamW\(params, lr=1e-2, eps=1e-5\)\n/);
    execFileSync('python3', ['-m', 'py_compile', script]);
    await connection.sendRequest(ShutdownRequest.type);
    const exited = new Promise((r) => child.on('exit', (code) => r(code)));
    await connection.sendNotification(ExitNotification.type);
    assert.equal(await exited, 0);
    connection.dispose();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
