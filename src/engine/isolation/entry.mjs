// A strategy thread's entry: the thread runs TypeScript (ours and the user's strategy file) through tsx, as the
// keeper's own entry does (bin/jup-keeper.js); loader hooks are not inherited by worker threads on Node 20.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
