#!/usr/bin/env node
// Runs a TypeScript entry file (benchmarks, scripts) through tsx's loader.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: run-ts <file.ts> [args...]\n');
  process.exit(2);
}
process.argv.splice(1, 1);
register();
await import(pathToFileURL(resolve(entry)).href);
