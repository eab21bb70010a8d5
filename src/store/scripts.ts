import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

const shas = new Map<string, string>();

/**
 * Runs a Lua script by its SHA1 (EVALSHA), sending its text only when the server does not have it yet (NOSCRIPT:
 * first use, a restart, SCRIPT FLUSH). The same as EVAL for the script's effect; a hot script's text, a few KB, is
 * no longer written on every call.
 */
export async function evalScript(redis: Redis, script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown> {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  try {
    return await redis.evalsha(sha, numKeys, ...args);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('NOSCRIPT')) return redis.eval(script, numKeys, ...args);
    throw err;
  }
}
