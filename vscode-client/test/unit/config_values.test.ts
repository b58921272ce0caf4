import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundledServerPath, initializationOptions, parseConfig, serverSettings } from '../../src/config_values';

test('defaults when nothing is set', () => {
  const { config, problems } = parseConfig(() => undefined);
  assert.deepEqual(config, { serverPath: '', rules: [], autoDiagnose: true, logLevel: 'info', probe: '' });
  assert.deepEqual(problems, []);
});

test('values and problems', () => {
  const values: Record<string, unknown> = {
    'server.path': ' /opt/denpex ', rules: ['team-rules'], autoDiagnose: false, logLevel: 'debug', probe: ' .denpex/node.json ',
  };
  const { config } = parseConfig((k) => values[k]);
  assert.deepEqual(config, { serverPath: '/opt/denpex', rules: ['team-rules'], autoDiagnose: false, logLevel: 'debug', probe: '.denpex/node.json' });
  const settings = { rules: ['team-rules'], autoDiagnose: false, logLevel: 'debug', probe: '.denpex/node.json' };
  assert.deepEqual(serverSettings(config), settings);
  assert.deepEqual(initializationOptions(config, false), { ...settings, trustedWorkspace: false });
  assert.deepEqual(initializationOptions(config, true), { ...settings, trustedWorkspace: true });
  const bad = parseConfig((k) => ({ 'server.path': 3, rules: 'x', autoDiagnose: 'yes', logLevel: 'loud', probe: 7 } as Record<string, unknown>)[k]);
  assert.equal(bad.problems.length, 5);
  assert.equal(bad.config.logLevel, 'info');
  assert.equal(bad.config.autoDiagnose, true);
});

test('the bundled binary', () => {
  assert.equal(bundledServerPath('/ext', 'linux'), '/ext/server/denpex');
  assert.equal(bundledServerPath('/ext', 'win32'), '/ext/server/denpex.exe');
});
