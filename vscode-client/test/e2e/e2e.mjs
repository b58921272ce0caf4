#!/usr/bin/env node
// End-to-end test of the packaged extension in a real VS Code: code-server 4.100.3 (VS Code
// 1.100) installed by tests/e2e/install-code-server.sh, driven by playwright-core through
// Debian's Chromium, headless. Every check goes through the UI, as a user would:
//   1. a traceback selected in a file and diagnosed shows its diagnostic in the Problems panel;
//   2. the hover on it shows the root cause;
//   3. the quick fix changes train.py on disk to contain eps=1e-5 once saved;
//   4. output printed in the integrated terminal is diagnosed through the terminal commands;
//   5. the report panel opens.
// Each step saves a screenshot.
//   node vscode-client/test/e2e/e2e.mjs --vsix dist/denpex-0.1.0-linux-x64.vsix [--shots DIR]
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const newestVsix = () => {
  const dist = join(root, 'dist');
  const files = existsSync(dist) ? readdirSync(dist).filter((f) => f.endsWith('.vsix')) : [];
  if (!files.length) throw new Error('no .vsix in dist/: run `npm run package` first');
  return join(dist, files.sort((a, b) => statSync(join(dist, b)).mtimeMs - statSync(join(dist, a)).mtimeMs)[0]);
};
const vsix = resolve(arg('--vsix', '') || newestVsix());
const shots = resolve(arg('--shots', join(root, 'build/e2e-screenshots')));
const installDir = process.env.CODE_SERVER_DIR ?? join(process.env.HOME ?? '/root', '.cache/code-server-e2e');
mkdirSync(shots, { recursive: true });

let failures = 0;
let passes = 0;
const log = (...a) => console.log('[e2e]', ...a);

async function freePort() {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function waitFor(fn, what, timeoutMs = 60000, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

// --- set up ------------------------------------------------------------------------------------
log('installing code-server (reused when already installed)');
const entry = execFileSync('bash', [join(root, 'tests/e2e/install-code-server.sh'), installDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  .trim().split('\n').pop();
const require = createRequire(join(installDir, 'package.json'));
const { chromium } = require('playwright-core');

const work = mkdtempSync(join(tmpdir(), 'denpex-e2e-'));
const ws = join(work, 'project');
const userData = join(work, 'user-data');
const extensions = join(work, 'extensions');
mkdirSync(ws, { recursive: true });
for (const f of ['train.py', 'fp16_adamw_cpu.py', 'train.log']) cpSync(join(root, 'examples/fp16-adamw', f), join(ws, f));
// A traceback pasted into notes: not a log file, so nothing is diagnosed until asked.
// A healthy log: opening it is what activates the extension (it activates on log documents and
// its commands, not on any folder that holds a *.log).
writeFileSync(join(ws, 'warmup.log'), 'step 1 | loss 0.693 | grad_norm 0.41\n');
writeFileSync(join(ws, 'notes.txt'), `Run 17 died. Output:\n\n${readFileSync(join(ws, 'train.log'), 'utf8')}\nTo do: find out why.\n`);
mkdirSync(join(userData, 'User'), { recursive: true });
writeFileSync(join(userData, 'User/settings.json'), JSON.stringify({
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'terminal.integrated.defaultProfile.linux': 'bash',
  'terminal.integrated.shellIntegration.enabled': true,
  'editor.hover.delay': 200,
  'window.commandCenter': false,
}, null, 2));

log('installing', vsix);
execFileSync('node', [entry, '--extensions-dir', extensions, '--user-data-dir', userData, '--install-extension', vsix], { stdio: 'inherit' });

const port = await freePort();
const server = spawn('node', [entry, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
  '--disable-workspace-trust', '--user-data-dir', userData, '--extensions-dir', extensions, ws], { stdio: ['ignore', 'pipe', 'pipe'] });
let serverLog = '';
server.stdout.on('data', (d) => { serverLog += d; });
server.stderr.on('data', (d) => { serverLog += d; });
await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 'code-server to listen');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
const page = await context.newPage();

async function shot(name) {
  const file = join(shots, `${name}.png`);
  await page.screenshot({ path: file });
  log('screenshot', file);
}

async function command(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  const item = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await item.waitFor({ state: 'visible', timeout: 15000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15000 }).catch(() => {});
}

async function openFile(name) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
  await page.locator('.tab', { hasText: name }).first().waitFor({ timeout: 15000 });
  await page.locator('.monaco-editor .view-lines').first().click();
}

async function goToLine(n) {
  await command('Go to Line/Column...');
  await page.keyboard.type(String(n));
  await page.keyboard.press('Enter');
}

async function step(name, fn) {
  try {
    await fn();
    passes++;
    log('ok:', name);
  } catch (e) {
    failures++;
    log('FAIL:', name, '-', e.message);
    await shot(`fail-${name.replace(/\W+/g, '-')}`).catch(() => {});
  }
}

// --- the user's steps --------------------------------------------------------------------------
try {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 120000 });

  await step('opening a training log starts the extension and its server', async () => {
    await openFile('warmup.log');
    await waitFor(async () => (await page.locator('.statusbar-item', { hasText: 'denpex' }).count()) > 0, 'the denpex status bar item', 90000);
  });

  await step('a selected traceback is diagnosed into the Problems panel', async () => {
    await openFile('notes.txt');
    await page.keyboard.press('Control+A');
    await command('Denpex: Diagnose Selection');
    await command('View: Focus Problems');
    const problems = page.locator('.markers-panel');
    await waitFor(async () => (await problems.innerText()).includes('AdamW epsilon underflow in FP16'), 'the problem entry', 30000);
    await shot('1-problems');
  });

  await step('the hover shows the root cause', async () => {
    await page.locator('.tab', { hasText: 'notes.txt' }).first().click();
    await goToLine(19);  // "FloatingPointError: loss is nan at step 2"
    await command('Show or Focus Hover');
    const hover = page.locator('.monaco-hover', { hasText: 'adamw-eps-fp16-underflow' }).first();
    await waitFor(async () => (await hover.innerText()).includes('Root cause'), 'the hover with the root cause', 20000);
    await shot('2-hover');
    await page.keyboard.press('Escape');
  });

  await step('the quick fix edits train.py on disk once saved', async () => {
    await goToLine(19);
    await command('Quick Fix...');
    const title = 'Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)';
    const item = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    await item.waitFor({ state: 'visible', timeout: 20000 });
    await shot('3-quick-fix');
    await page.keyboard.press('Enter');  // the first action is focused
    await item.waitFor({ state: 'hidden', timeout: 10000 });
    await command('File: Save All');
    await waitFor(() => readFileSync(join(ws, 'train.py'), 'utf8').includes('optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-5)'),
      'train.py to contain eps=1e-5 on disk', 20000);
    execFileSync('python3', ['-m', 'py_compile', join(ws, 'train.py')]);
  });

  await step('terminal output is diagnosed through Diagnose Terminal Selection', async () => {
    await page.keyboard.press('Escape');
    await command('Terminal: Create New Terminal');
    await page.locator('.terminal-wrapper').first().waitFor({ timeout: 20000 });
    await page.waitForTimeout(1500);
    await page.keyboard.type('cat train.log');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(1500);
    await page.evaluate(() => navigator.clipboard.writeText('the user clipboard'));
    await command('Terminal: Select All');
    await command('Denpex: Diagnose Terminal Selection');
    await page.locator('.tab', { hasText: 'terminal selection' }).first().waitFor({ timeout: 20000 });
    await command('View: Focus Problems');
    const problems = page.locator('.markers-panel');
    await waitFor(async () => (await problems.innerText()).includes('# denpex: terminal selection'), 'a problem in the terminal output document', 30000);
    await shot('4-terminal-selection');
    const clipboard = await page.evaluate(() => navigator.clipboard.readText());
    if (clipboard !== 'the user clipboard') throw new Error(`the clipboard was not restored: ${JSON.stringify(clipboard.slice(0, 80))}`);
  });

  await step('the last terminal command is diagnosed through shell integration', async () => {
    await command('Terminal: Focus Terminal');
    await page.waitForTimeout(500);
    await page.keyboard.type('python3 -c "print(1)" ; cat train.log ; false');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(2000);
    await command('Denpex: Diagnose Last Terminal Command');
    await page.locator('.tab', { hasText: 'last terminal command' }).first().waitFor({ timeout: 20000 });
    const text = (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    if (!text.includes('$ python3 -c "print(1)" ; cat train.log ; false (exit code 1)')) throw new Error(`the opened document does not start with the command: ${text.slice(0, 200)}`);
    // The diagnostic shows in the new document's editor (the Problems list is virtualised and
    // may not render every entry).
    await waitFor(async () => (await page.locator('.editor-group-container.active .squiggly-error').count()) > 0,
      'an error squiggle in the command output document', 30000);
    await shot('5-last-command');
  });

  await step('a training log is diagnosed as soon as it opens', async () => {
    await openFile('train.log');
    await waitFor(async () => (await page.locator('.editor-group-container.active .squiggly-error').count()) > 0,
      'an error squiggle in train.log', 30000);
    await shot('7-log-opened');
  });

  await step('Explain Rule shows a rule entry', async () => {
    await command('Denpex: Explain Rule');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill('gradient-explosion');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Gradient explosion' }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: 'Preview' }).first().waitFor({ timeout: 20000 });
  });

  await step('the report panel opens', async () => {
    await page.locator('.tab', { hasText: 'notes.txt' }).first().click();
    await command('Denpex: Show Report');
    await page.locator('.tab', { hasText: 'denpex: notes.txt' }).first().waitFor({ timeout: 20000 });
    // Webviews are nested iframes; other webviews (the Explain Rule preview) may be open too.
    // Look through every frame of the page for the report's verdict.
    const frame = await waitFor(async () => {
      for (const f of page.frames()) {
        try {
          if (await f.$('#verdict')) return f;
        } catch {
          // a frame that went away while we looked
        }
      }
      return null;
    }, 'the report webview', 60000, 500);
    // The report is made fresh: the fix applied earlier shows as already there, with no Apply button.
    const body = await frame.locator('body').innerText();
    if (!body.includes('AdamW epsilon underflow in FP16')) throw new Error('the report does not name the failure');
    if (!body.includes('already has eps=1e-5')) throw new Error(`the report offers a stale fix: ${body.slice(0, 300)}`);
    if ((await frame.locator('button.copy').count()) < 1) throw new Error('no Copy button for the verify command');
    await shot('6-report');
  });
} finally {
  await browser.close().catch(() => {});
  server.kill();
  if (failures) console.log(serverLog.split('\n').slice(-30).join('\n'));
  rmSync(work, { recursive: true, force: true });
}

console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
