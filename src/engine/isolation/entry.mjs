// A strategy thread's entry. The user's strategy file may be TypeScript, so the thread registers tsx, as the keeper's
// own entry does (bin/jup-keeper.js); loader hooks are not inherited by worker threads on Node 20.
//
// Compiled (`npm run build`: this file is copied beside thread.js), our own code is plain JavaScript and tsx serves
// the user's file only. Its `import ... from 'jup-keeper/sdk'` would resolve, through the package's exports, to
// src/sdk/index.ts: a second copy of the SDK, and one the Docker image does not ship. So the thread resolves that
// name to the compiled SDK beside it, the one the engine uses.
import { existsSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';

const SDK_HOOKS = `let sdk;
export function initialize(data) { sdk = data.sdk; }
export function resolve(specifier, context, next) {
  return specifier === 'jup-keeper/sdk' ? { url: sdk, shortCircuit: true } : next(specifier, context);
}`;

register();
const compiled = new URL('./thread.js', import.meta.url);
if (existsSync(compiled)) {
  registerHooks(`data:text/javascript,${encodeURIComponent(SDK_HOOKS)}`, { data: { sdk: new URL('../../sdk/index.js', import.meta.url).href } });
  await import(compiled.href);
} else {
  await import('./thread.ts');
}
