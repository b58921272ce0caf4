// Bundles the extension (dist/extension.js) or, with --tests, the unit tests (out/test/).
// Type checking is separate: `npm run typecheck` (tsc --noEmit, strict).
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

const tests = process.argv.includes('--tests');
if (tests) {
  const entryPoints = readdirSync('test/unit').filter((f) => f.endsWith('.test.ts')).map((f) => `test/unit/${f}`);
  await build({ entryPoints, outdir: 'out/test', bundle: true, platform: 'node', format: 'cjs', target: 'node20', sourcemap: true });
} else {
  await build({
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: true,
    minify: process.argv.includes('--minify'),
  });
}
