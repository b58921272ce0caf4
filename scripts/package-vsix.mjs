#!/usr/bin/env node
// Builds the server and the extension and packages a .vsix for this platform with the server
// binary inside (`vsce package --target linux-x64`). The binary links the C++ runtime in
// (DENPEX_PORTABLE); the libraries it needs beyond the C runtime travel in server/lib/ (its
// rpath is $ORIGIN/lib); scripts/check-portable.sh checks the oldest glibc they need.
//   npm run package            -> dist/denpex-<version>-<target>.vsix
import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync, cpSync, mkdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const client = join(root, 'vscode-client');
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });

// Only the target this project builds and tests (the end-to-end test installs this package).
const target = { 'linux-x64': 'linux-x64' }[`${process.platform}-${process.arch}`];
if (!target) throw new Error(`denpex is built and tested for linux-x64 only, not ${process.platform}-${process.arch}`);

if (!process.argv.includes('--skip-server-build')) run('bash', ['scripts/build.sh']);
const binary = join(root, 'build/denpex');
if (!existsSync(binary)) throw new Error('build/denpex is missing: run scripts/build.sh');

const server = join(client, 'server');
rmSync(server, { recursive: true, force: true });
mkdirSync(join(server, 'lib'), { recursive: true });
copyFileSync(binary, join(server, 'denpex'));
chmodSync(join(server, 'denpex'), 0o755);
// The rules' pages travel beside the server, which links each diagnostic to its page there.
cpSync(join(root, 'docs/rules'), join(server, 'docs/rules'), { recursive: true });
if (process.platform === 'linux') run('strip', ['--strip-debug', join(server, 'denpex')]);
const system = /^(linux-vdso|libc\.|libm\.|libgcc_s\.|libstdc\+\+\.|ld-linux|libpthread\.|libdl\.|librt\.)/;
if (process.platform === 'linux') {
  for (const line of execFileSync('ldd', [binary], { encoding: 'utf8' }).split('\n')) {
    const m = line.match(/^\s*(\S+) => (\/\S+)/);
    if (m && !system.test(m[1])) copyFileSync(m[2], join(server, 'lib', basename(m[1])));
  }
}

run('node', ['esbuild.mjs', '--minify'], { cwd: client });
const version = JSON.parse(readFileSync(join(client, 'package.json'), 'utf8')).version;
mkdirSync(join(root, 'dist'), { recursive: true });
const out = join(root, 'dist', `denpex-${version}-${target}.vsix`);
run(join(root, 'node_modules/.bin/vsce'), ['package', '--target', target, '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], { cwd: client });
console.log(out);
