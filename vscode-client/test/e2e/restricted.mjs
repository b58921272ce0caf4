#!/usr/bin/env node
// End-to-end test of the packaged extension in a folder the user has not trusted (Restricted
// Mode), in a real VS Code (harness.mjs). The folder plants what an untrusted repository could:
// a rule of its own in .denpex/rules, and a workspace setting that points denpex.server.path at
// a script of its own. Through the UI, as a user would:
//   1. in Restricted Mode a log opened is diagnosed with the shipped rules only: the planted
//      rule's finding is absent and the planted server script never ran;
//   2. once the user trusts the folder (the Workspace Trust editor), the extension restarts its
//      server, which now loads the folder's rules (their finding appears) through the
//      workspace's own server path;
//   3. a rule edited on disk takes effect at once: no restart.
//   node vscode-client/test/e2e/restricted.mjs [--vsix dist/denpex-0.1.0-linux-x64.vsix] [--shots DIR]
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, openVsCode, root, waitFor } from './harness.mjs';

let marker = '';
const vscode = await openVsCode({
  scenario: 'restricted',
  trust: false,
  prepare: (ws, extensions) => {
    const installed = readdirSync(extensions).find((d) => d.startsWith('denpex.denpex-'));
    if (!installed) throw new Error(`the extension is not in ${extensions}`);
    const bundled = join(extensions, installed, 'server/denpex');
    // The log: the seed failure, and a failure only the folder's own rule knows.
    const seed = readFileSync(join(root, 'examples/fp16-adamw/train.log'), 'utf8');
    writeFileSync(join(ws, 'run.log'), `LabMountError: /lab/data is gone (stale NFS handle)\n${seed}`);
    mkdirSync(join(ws, '.denpex/rules'), { recursive: true });
    writeFileSync(join(ws, '.denpex/rules/lab-mount-lost.yaml'),
      "id: lab-mount-lost\ntitle: Lab data mount lost\ncategory: storage\nsummary: The lab's data mount went away.\n" +
      "signals:\n  gone: 'LabMountError: /lab/data'\ncondition: gone\n");
    // The folder's own server path: a script that leaves a mark, then runs the real server.
    marker = join(ws, 'server-script-ran');
    const script = join(ws, 'tools/denpex-server.sh');
    mkdirSync(join(ws, 'tools'));
    writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\nexec '${bundled}' "$@"\n`);
    chmodSync(script, 0o755);
    mkdirSync(join(ws, '.vscode'));
    writeFileSync(join(ws, '.vscode/settings.json'), JSON.stringify({ 'denpex.server.path': script }, null, 2));
  },
});
const { page, shot, command, openFile, step } = vscode;

await vscode.run(async () => {
  await step('in Restricted Mode a log is diagnosed with the shipped rules only', async () => {
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 30000 });
    await openFile('run.log');
    await vscode.serverRunning();
    const problems = await vscode.problemsShowing('AdamW epsilon underflow in FP16', 90000);
    // Both findings would come from the one diagnosis of run.log that is now shown.
    if (problems.includes('Lab data mount lost')) throw new Error('the folder\'s own rule was loaded in Restricted Mode');
    if (existsSync(marker)) throw new Error('the server path from the folder\'s settings was run in Restricted Mode');
    await shot('1-restricted');
  });

  await step('trusting the folder restarts the server with the folder\'s rules', async () => {
    await command('Workspaces: Manage Workspace Trust');
    const trustButton = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
    await trustButton.waitFor({ state: 'visible', timeout: 20000 });
    await shot('2-trust-editor');
    await trustButton.click();
    await waitFor(async () => (await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).count()) === 0,
      'Restricted Mode to end', 20000);
    await openFile('run.log');
    await vscode.problemsShowing('Lab data mount lost', 60000);
    await vscode.problemsShowing('AdamW epsilon underflow in FP16', 5000);
    if (!existsSync(marker)) throw new Error('the trusted folder\'s server path was not used');
    await vscode.serverRunning();
    const errors = await page.locator('.notifications-toasts .notification-toast', { hasText: /denpex|Server/ }).allInnerTexts();
    if (errors.length) throw new Error(`the restart showed errors: ${errors.join(' | ')}`);
    log('the folder\'s rule and server path are in use once trusted');
    await shot('3-trusted');
  });

  await step('a rule edited on disk takes effect without a restart', async () => {
    const rule = join(vscode.ws, '.denpex/rules/lab-mount-lost.yaml');
    rmSync(marker);  // the server script leaves it again if the server is started again
    writeFileSync(rule, readFileSync(rule, 'utf8').replace('title: Lab data mount lost', 'title: Lab storage mount lost'));
    await vscode.problemsShowing('Lab storage mount lost', 60000);
    await vscode.serverRunning();
    if (existsSync(marker)) throw new Error('the server was started again to take the edited rule');
    await shot('4-rule-edited');
  });
});
