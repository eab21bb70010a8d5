import type { Redis } from 'ioredis';

/** Every key matching a MATCH pattern, by SCAN (never KEYS): the whole database walked in batches of 1,000. */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    out.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return out;
}

/** A prefix with Redis glob characters escaped, for MATCH. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
