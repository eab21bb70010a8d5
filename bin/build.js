#!/usr/bin/env node
// `npm run build [-- --out-dir <dir>]`: the keeper as plain JavaScript (dist/ by default), what the Docker image runs
// with node and no TypeScript loader for our own code. tsc emits src/ and strategies/ (tsconfig.build.json); this
// script adds what tsc does not: the strategy threads' entry (an .mjs file, not compiled) and a package.json, which
// marks the output as ES modules and which `jup-keeper --version` reads two directories above src/cli/.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { 'out-dir': { type: 'string' } } });
const outDir = values['out-dir'] === undefined ? join(root, 'dist') : resolve(values['out-dir']);

// A file removed from src/ must not live on in the output, so the output is emptied first: never the project itself.
if (root === outDir || root.startsWith(outDir + sep)) {
  process.stderr.write(`--out-dir ${outDir} holds the project itself: choose a directory of its own\n`);
  process.exit(2);
}
rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], { cwd: root, stdio: 'inherit' });
} catch {
  process.exit(1);
}

for (const rel of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })) {
  if (!rel.endsWith('.mjs')) continue;
  const to = join(outDir, 'src', rel);
  mkdirSync(dirname(to), { recursive: true });
  cpSync(join(root, 'src', rel), to);
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const manifest = { name: pkg.name, version: pkg.version, private: true, type: 'module', '//': 'written by npm run build (bin/build.js): the compiled keeper' };
writeFileSync(join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`built ${outDir}\n`);
