import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundledServerPath, initializationOptions, parseConfig, serverSettings } from '../../src/config_values';

test('defaults when nothing is set', () => {
  const { config, problems } = parseConfig(() => undefined);
  assert.deepEqual(config, { serverPath: '', rules: [], autoDiagnose: true });
  assert.deepEqual(problems, []);
});

test('values and problems', () => {
  const values: Record<string, unknown> = { 'server.path': ' /opt/denpex ', rules: ['team-rules'], autoDiagnose: false };
  const { config } = parseConfig((k) => values[k]);
  assert.deepEqual(config, { serverPath: '/opt/denpex', rules: ['team-rules'], autoDiagnose: false });
  assert.deepEqual(serverSettings(config), { rules: ['team-rules'], autoDiagnose: false });
  assert.deepEqual(initializationOptions(config, false), { rules: ['team-rules'], autoDiagnose: false, trustedWorkspace: false });
  assert.deepEqual(initializationOptions(config, true), { rules: ['team-rules'], autoDiagnose: false, trustedWorkspace: true });
  const bad = parseConfig((k) => ({ 'server.path': 3, rules: 'x', autoDiagnose: 'yes' } as Record<string, unknown>)[k]);
  assert.equal(bad.problems.length, 3);
  assert.equal(bad.config.autoDiagnose, true);
});

test('the bundled binary', () => {
  assert.equal(bundledServerPath('/ext', 'linux'), '/ext/server/denpex');
  assert.equal(bundledServerPath('/ext', 'win32'), '/ext/server/denpex.exe');
});
