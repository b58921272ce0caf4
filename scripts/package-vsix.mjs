#!/usr/bin/env node
// Builds the server and the extension and packages a .vsix for this platform with the server
// binary inside (`vsce package --target linux-x64`). The binary is static (DENPEX_PORTABLE):
// nothing travels beside it, and scripts/check-portable.sh runs it where there is no C library.
//   npm run package            -> dist/denpex-<version>-<target>.vsix
import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync, cpSync, mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
mkdirSync(server, { recursive: true });
copyFileSync(binary, join(server, 'denpex'));
chmodSync(join(server, 'denpex'), 0o755);
// The rules' pages travel beside the server, which links each diagnostic to its page there.
cpSync(join(root, 'docs/rules'), join(server, 'docs/rules'), { recursive: true });
// The static server carries code of these libraries, whose licenses ask that their notices travel
// with it: each one's Debian copyright file, as installed by scripts/install-deps.sh. Boost's
// license asks for none in machine code; GCC's runtime library exception neither.
const linked = [
  ['RE2 (regular expressions)', 'libre2-dev'],
  ['Vectorscan (multi-pattern scanning)', 'libvectorscan-dev'],
  ['yaml-cpp (rule files)', 'libyaml-cpp-dev'],
  ['JSON for Modern C++ (nlohmann/json)', 'nlohmann-json3-dev'],
  ['spdlog (logging)', 'libspdlog-dev'],
  ['{fmt} (formatting, through spdlog)', 'libfmt-dev'],
  ['the GNU C Library (linked statically; server/relink/ holds the rest of the binary, to link with a C library of your own)', 'libc6-dev'],
];
let notices = 'The denpex server (server/denpex) is linked statically with the libraries below. Each one\'s\n' +
  'copyright and license, as Debian ships it, follows.\n';
for (const [what, pkg] of linked) {
  const file = `/usr/share/doc/${pkg}/copyright`;
  if (!existsSync(file)) throw new Error(`${file} is missing: scripts/install-deps.sh installs ${pkg}`);
  notices += `\n${'='.repeat(78)}\n${what}: Debian package ${pkg}\n${'='.repeat(78)}\n\n${readFileSync(file, 'utf8')}`;
}
writeFileSync(join(server, 'THIRD-PARTY-NOTICES.txt'), notices);
// The GNU C Library is linked in statically; its license (LGPL 2.1, section 6a) asks that the
// rest of the binary travel with it in a form a user can link with a C library of their own.
const relinkObject = join(root, 'build/denpex-relink.o');
if (!existsSync(relinkObject)) throw new Error('build/denpex-relink.o is missing: build with -DDENPEX_PORTABLE=ON (scripts/build.sh does)');
mkdirSync(join(server, 'relink'));
copyFileSync(relinkObject, join(server, 'relink/denpex-relink.o'));
writeFileSync(join(server, 'relink/README.txt'), [
  'denpex-relink.o is the denpex server (../denpex) without the GNU C Library: the objects and',
  'archives it was linked from, the C++ runtime included, joined into one relocatable object.',
  'The GNU C Library is linked into ../denpex statically; its license (the GNU Lesser General',
  'Public License 2.1, section 6) lets you link denpex with a modified version of that library.',
  'Build your C library, then link the object with it, its static archives first on the search',
  'path (for example with -L or --sysroot):',
  '',
  '    gcc -static -o denpex denpex-relink.o -lm',
  '',
  '`./denpex version` then prints the version of this package. To use it in VS Code, set',
  '"denpex.server.path" to the new binary.',
  '',
].join('\n'));
if (process.platform === 'linux') run('strip', ['--strip-debug', join(server, 'denpex')]);
if (process.platform === 'linux' && execFileSync('readelf', ['-l', binary], { encoding: 'utf8' }).includes('program interpreter'))
  throw new Error('build/denpex is not static: build it with -DDENPEX_PORTABLE=ON (scripts/build.sh does)');

run('node', ['esbuild.mjs', '--minify'], { cwd: client });
const version = JSON.parse(readFileSync(join(client, 'package.json'), 'utf8')).version;
mkdirSync(join(root, 'dist'), { recursive: true });
const out = join(root, 'dist', `denpex-${version}-${target}.vsix`);
run(join(root, 'node_modules/.bin/vsce'), ['package', '--target', target, '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], { cwd: client });
console.log(out);
