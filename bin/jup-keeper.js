#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader: one code path for `npm start`, `npx jup-keeper` and Docker.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
