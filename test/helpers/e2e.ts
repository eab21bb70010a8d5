import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { IntentStore, type IntentRecord } from '../../src/store/intents.js';
import { isTerminal, type IntentState } from '../../src/engine/states.js';
import { ROOT, runKeeperCli, type KeeperProcess } from './keeper.js';

/** pino levels. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

export { dcaSwapsConfig, type DcaInstance } from './keeper.js';

/** Every intent of a prefix, read straight from the ledger in Redis (oldest first). */
export async function readIntents(redisUrl: string, prefix: string): Promise<IntentRecord[]> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  redis.on('error', () => undefined);
  try {
    return await new IntentStore(redis, prefix).all();
  } finally {
    redis.disconnect();
  }
}

/** Whether an intent state is terminal. */
export function isTerminalState(state: string): boolean {
  return isTerminal(state as IntentState);
}

/** Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitUntil<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Whether the CLI has a command (the file that registers it exists). */
export function cliHasCommand(name: string): boolean {
  return existsSync(join(ROOT, 'src/cli/commands', `${name}.ts`));
}

/** Runs `jup-keeper <args>` and parses its stdout as JSON (throws with the output when it fails). */
export async function cliJson<T = unknown>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const r = await runKeeperCli(args, env);
  if (r.code !== 0) throw new Error(`jup-keeper ${args.join(' ')} exited ${String(r.code)}\nstdout: ${r.stdout}\nstderr: ${r.stderr.slice(-2000)}`);
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`jup-keeper ${args.join(' ')} printed no JSON:\n${r.stdout.slice(0, 2000)}`);
  }
}

/**
 * Stops a keeper with SIGTERM and returns its exit code. A keeper still alive after `withinMs` is killed (so that
 * no test leaves one behind) and the call throws: shutdown hung.
 */
export async function stopKeeper(k: KeeperProcess, withinMs = 25_000): Promise<number | string> {
  if (k.proc.exitCode !== null || k.proc.signalCode !== null) {
    await outputDrained(k);
    return k.exited;
  }
  k.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), withinMs)));
  const code = await Promise.race([k.exited, hung]);
  clearTimeout(timer);
  if (code === 'hung') {
    k.kill('SIGKILL');
    await k.exited;
    throw new Error(`the keeper did not stop within ${withinMs} ms of SIGTERM; stderr tail:\n${k.stderr.join('').slice(-3000)}`);
  }
  await outputDrained(k);
  return code;
}

/** Resolves once the process's stdout and stderr are closed: 'exit' can come before their last chunks are read. */
export async function outputDrained(k: KeeperProcess, timeoutMs = 5_000): Promise<void> {
  const { stdout, stderr } = k.proc;
  if ((!stdout || stdout.closed) && (!stderr || stderr.closed)) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    k.proc.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
