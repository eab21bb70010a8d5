#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader: one code path for `npm start` and `npx jup-keeper` in the source
// tree. The Docker image runs the compiled CLI instead (`npm run build`, dist/src/cli/main.js).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
