// The end-to-end harness shared by the scenarios in this folder: installs code-server 4.100.3
// (VS Code 1.100, tests/e2e/install-code-server.sh), installs the packaged .vsix into a fresh
// profile, opens a workspace in headless Chromium through playwright-core, and gives the
// scenario the user's means: the command palette, Quick Open, screenshots, and named steps
// whose failures are counted, not thrown.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

const newestVsix = () => {
  const dist = join(root, 'dist');
  const files = existsSync(dist) ? readdirSync(dist).filter((f) => f.endsWith('.vsix')) : [];
  if (!files.length) throw new Error('no .vsix in dist/: run `npm run package` first');
  return join(dist, files.sort((a, b) => statSync(join(dist, b)).mtimeMs - statSync(join(dist, a)).mtimeMs)[0]);
};

export const log = (...a) => console.log('[e2e]', ...a);

async function freePort() {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

export async function waitFor(fn, what, timeoutMs = 60000, everyMs = 250) {
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

const quietSettings = {
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
};

// Starts VS Code on a new workspace. `prepare(ws, extensionsDir)` writes the workspace's files
// before VS Code sees them. With `trust: true` Workspace Trust is switched off (every folder
// is trusted); with `trust: false` it is on and the folder opens in Restricted Mode, without
// the start-up prompt, as a folder the user has not vouched for.
export async function openVsCode({ scenario, prepare, trust = true }) {
  const vsix = resolve(arg('--vsix', '') || newestVsix());
  const shots = resolve(arg('--shots', join(root, 'build/e2e-screenshots')), scenario);
  const installDir = process.env.CODE_SERVER_DIR ?? join(process.env.HOME ?? '/root', '.cache/code-server-e2e');
  mkdirSync(shots, { recursive: true });

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
  mkdirSync(join(userData, 'User'), { recursive: true });
  const trustSettings = trust
    ? { 'security.workspace.trust.enabled': false }
    : { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.banner': 'always' };
  writeFileSync(join(userData, 'User/settings.json'), JSON.stringify({ ...quietSettings, ...trustSettings }, null, 2));

  log('installing', vsix);
  execFileSync('node', [entry, '--extensions-dir', extensions, '--user-data-dir', userData, '--install-extension', vsix], { stdio: 'inherit' });
  await prepare(ws, extensions);

  const port = await freePort();
  const server = spawn('node', [entry, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
    ...(trust ? ['--disable-workspace-trust'] : []), '--user-data-dir', userData, '--extensions-dir', extensions, ws], { stdio: ['ignore', 'pipe', 'pipe'] });
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

  let failures = 0;
  let passes = 0;

  const vscode = {
    page,
    ws,
    extensions,

    async shot(name) {
      const file = join(shots, `${name}.png`);
      await page.screenshot({ path: file });
      log('screenshot', file);
    },

    // Runs a command from the palette by its title. On a busy machine a key pressed while the
    // workbench settles (an editor that just took the focus) can go nowhere, or the palette can
    // close before it takes the text: the whole opening is tried again, after Escape, before
    // giving up. Nothing has run until Enter, so a retry never runs a command twice.
    async command(title) {
      const input = page.locator('.quick-input-widget .quick-input-box input').first();
      for (let attempt = 1; ; ++attempt) {
        try {
          // A webview (a preview, the report) keeps the keyboard, F1 included: take it back first.
          await page.evaluate(() => { if (document.activeElement instanceof HTMLIFrameElement) document.activeElement.blur(); });
          await page.keyboard.press('F1');
          await input.waitFor({ state: 'visible', timeout: 15000 });
          await input.fill(`>${title}`, { timeout: 10000 });
          break;
        } catch (e) {
          if (attempt === 3) {
            // Say where the keyboard was: the usual cause is a view that kept the focus.
            await vscode.shot(`palette-${title.replace(/\W+/g, '-')}`).catch(() => {});
            const focus = await page.evaluate(() => `${document.activeElement?.tagName}.${document.activeElement?.className}`);
            throw new Error(`the command palette did not take "${title}" (focus on ${focus}): ${e.message}`);
          }
          await page.keyboard.press('Escape');
          await page.waitForTimeout(1000);
        }
      }
      const item = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      await item.waitFor({ state: 'visible', timeout: 15000 });
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15000 }).catch(() => {});
    },

    // Opens a workspace file through Quick Open and focuses its editor.
    async openFile(name) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget .quick-input-box input').first();
      await input.waitFor({ state: 'visible' });
      await input.fill(name);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15000 });
      await page.keyboard.press('Enter');
      await page.locator('.tab', { hasText: name }).first().waitFor({ timeout: 15000 });
      await page.locator('.monaco-editor .view-lines').first().click();
    },

    // The first frame holding `selector`. Webviews are nested iframes, and other webviews (the
    // Explain Rule preview) may be open too: every frame of the page is looked through.
    async frameWith(selector, what, timeoutMs = 60000) {
      return waitFor(async () => {
        for (const f of page.frames()) {
          try {
            if (await f.$(selector)) return f;
          } catch {
            // a frame that went away while we looked
          }
        }
        return null;
      }, what, timeoutMs, 500);
    },

    async goToLine(n) {
      await vscode.command('Go to Line/Column...');
      await page.keyboard.type(String(n));
      await page.keyboard.press('Enter');
    },

    // The Problems panel's text, once it shows `expected`; with `filter`, only the problems
    // that match it (the panel's own filter box, as a user narrows a long list).
    async problemsShowing(expected, timeoutMs = 30000, filter = '') {
      if (!(await page.locator('.markers-panel').isVisible())) await vscode.command('View: Focus Problems');
      const box = page.locator('.part.panel input[placeholder^="Filter (e.g. text"]').first();
      if (filter || ((await box.isVisible()) && (await box.inputValue()))) {
        // As a user types it: a click in the box, everything in it replaced.
        await box.click();
        await page.keyboard.press('Control+A');
        await page.keyboard.press('Backspace');
        if (filter) await page.keyboard.type(filter);
      }
      const problems = page.locator('.markers-panel');
      return waitFor(async () => {
        const text = await problems.innerText();
        return text.includes(expected) ? text : null;
      }, `the Problems panel to show "${expected}"`, timeoutMs);
    },

    // The active editor's first problem, as F8 shows it (message, source and code), once it
    // names `code`: what the user sees on that document, whatever other documents hold. (The
    // Problems panel's filter box matches file names loosely, so it cannot tell two apart.)
    async problemInActiveEditor(code, timeoutMs = 30000) {
      return waitFor(async () => {
        await vscode.command('Go to Next Problem (Error, Warning, Info)');
        const widget = page.locator('.marker-widget').first();
        try {
          await widget.waitFor({ state: 'visible', timeout: 3000 });
        } catch {
          return null;
        }
        const text = await widget.innerText();
        await page.keyboard.press('Escape');
        return text.includes(code) ? text : null;
      }, `the active editor's problem to name ${code}`, timeoutMs, 1000);
    },

    // Waits until the extension's language status item (shown for log documents, in the hover
    // of the status bar's language status) says its server is running: not starting, stopped or
    // failed, which each have their own icon. A log document must be active.
    async serverRunning(timeoutMs = 90000) {
      const indicator = page.locator('[id="status.languageStatus"]').first();
      const item = page.locator('.hover-language-status .element', { hasText: 'denpex' });
      await waitFor(async () => {
        await indicator.hover();
        await item.first().waitFor({ state: 'visible', timeout: 3000 });
        const running = await item.locator('.codicon-pulse').count();
        await page.mouse.move(700, 300);
        return running > 0;
      }, 'the denpex server to be running (its language status)', timeoutMs, 500);
    },

    async step(name, fn) {
      try {
        await fn();
        passes++;
        log('ok:', name);
      } catch (e) {
        failures++;
        log('FAIL:', name, '-', e.message);
        await vscode.shot(`fail-${name.replace(/\W+/g, '-')}`).catch(() => {});
      }
    },

    // Loads the workbench, runs the scenario's steps, closes everything, prints the tally and
    // exits with 1 when a step failed or the scenario itself threw.
    async run(steps) {
      try {
        await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
        await page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
        await steps();
      } catch (e) {
        failures++;
        log('FAIL: the scenario stopped -', e.message);
      } finally {
        await browser.close().catch(() => {});
        server.kill();
        if (failures) console.log(serverLog.split('\n').slice(-30).join('\n'));
        rmSync(work, { recursive: true, force: true });
      }
      console.log(`${passes} passed, ${failures} failed`);
      process.exit(failures ? 1 : 0);
    },
  };
  return vscode;
}
