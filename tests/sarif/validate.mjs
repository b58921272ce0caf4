#!/usr/bin/env node
// Every SARIF log denpex writes for the committed logs (the examples, the corpus of real logs,
// the distributed recordings, the rule examples) validated against the SARIF 2.1.0 JSON schema
// that ships with Microsoft's SARIF SDK (npm: @microsoft/sarif-multitool-linux), and checked
// for what code scanning needs beyond the schema: one column unit, relative URIs with a base.
//   node tests/sarif/validate.mjs build/denpex
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(join(root, 'package.json'));
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default ?? require('ajv-formats');
const denpex = resolve(process.argv[2] ?? join(root, 'build/denpex'));

const schema = JSON.parse(readFileSync(require.resolve('@microsoft/sarif-multitool-linux/sarif-2.1.0.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

const logs = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.(log|out|err|txt)$/.test(name)) logs.push(path);
  }
};
for (const dir of ['examples', 'tests/corpus', 'tests/distributed', 'tests/rules']) walk(join(root, dir));

// DENPEX_SWEEP_STRIDE=N reads every Nth log only (the sanitizer pass: the plain pass reads all).
const stride = Math.max(1, Number.parseInt(process.env.DENPEX_SWEEP_STRIDE ?? '1', 10) || 1);
const sample = logs.sort().filter((_, i) => i % stride === 0);

let failed = 0;
let findings = 0;
for (const log of sample) {
  const name = relative(root, log);
  let out;
  let status = 0;
  try {
    out = execFileSync(denpex, ['diagnose', '--format', 'sarif', name], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  } catch (e) {
    out = e.stdout;  // exit status 1: findings
    status = e.status;
  }
  const problems = [];
  if (status !== 0 && status !== 1) problems.push(`exit status ${status}`);
  let sarif;
  try {
    sarif = JSON.parse(out);
  } catch (e) {
    problems.push(`not JSON: ${e.message}`);
  }
  if (sarif && !validate(sarif)) problems.push(...validate.errors.slice(0, 5).map((e) => `${e.instancePath} ${e.message}`));
  if (sarif && sarif.runs?.length !== 1) problems.push(`${sarif.runs?.length ?? 0} runs, not 1`);
  // As many results as the exit status says: some when it is 1, none when it is 0.
  const results = (sarif?.runs ?? []).reduce((n, run) => n + (run.results?.length ?? 0), 0);
  if (status === 1 && results === 0) problems.push('exit status 1 but no results');
  if (status === 0 && results !== 0) problems.push(`exit status 0 but ${results} results`);
  for (const run of sarif?.runs ?? []) {
    if (run.columnKind !== 'utf16CodeUnits') problems.push('columnKind is not utf16CodeUnits');
    for (const result of run.results ?? []) {
      findings++;
      for (const loc of [...(result.locations ?? []), ...(result.relatedLocations ?? [])]) {
        const a = loc.physicalLocation?.artifactLocation;
        if (!a || (!a.uri.startsWith('file:///') && a.uriBaseId !== '%SRCROOT%')) problems.push(`artifact ${JSON.stringify(a)} is neither absolute nor relative to %SRCROOT%`);
      }
      if (!/^[0-9a-f]{16}$/.test(result.partialFingerprints?.['denpexFailure/v2'] ?? '')) problems.push('no stable fingerprint');
    }
  }
  if (problems.length) {
    failed++;
    console.log(`FAIL ${name}\n  ${problems.join('\n  ')}`);
  }
}
console.log(`sarif: ${sample.length - failed} of ${sample.length} logs valid against the SARIF 2.1.0 schema (${findings} results)` +
  (stride > 1 ? `; every ${stride}th of ${logs.length} (DENPEX_SWEEP_STRIDE)` : ''));
if (logs.length < 100) {
  console.log('sarif: fewer logs than expected: is the tree complete?');
  process.exit(1);
}
process.exit(failed ? 1 : 0);
