import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { SubjectGenerations } from '../engine/keeperPorts.js';
import { evalScript } from './scripts.js';

/**
 * How long a subject's generations are kept after they last moved, ms. They are a cache of its intents' records
 * (see SubjectGenerations): one that expires is rebuilt from those, so this only bounds the keys of subjects the
 * venue no longer lists (claimed positions, closed orders), which nothing would delete otherwise.
 */
export const GENERATIONS_TTL_MS = 30 * 86_400_000;

/** Where a subject never advanced stands. */
const FIRST: SubjectGenerations = { generation: 1, spent: 0, refusedInRow: 0, rules: [] };

const FIELDS = ['generation', 'spent', 'refusedInRow', 'rules'] as const;

// A stored record is outside data too; one that does not parse is read as FIRST, which is rebuilt from the ledger.
const storedSchema = z.object({
  generation: z.coerce.number().int().min(1),
  spent: z.coerce.number().int().min(0),
  refusedInRow: z.coerce.number().int().min(0),
  rules: z.string().transform((t) => (t === '' ? [] : t.split(','))),
});

// Moves a subject on unless another keeper did first. A missing record (never advanced, or expired) is moved too:
// `next` was folded from a state the caller read and an ended intent, which are the ledger's and never change, so it
// is right whatever is stored. KEYS[1] the subject's record; ARGV[1] the generation it must be at; ARGV[2..5] the
// next generation, spent, refusedInRow and rules (csv); ARGV[6] how long it is kept, ms.
const ADVANCE_LUA = `
local cur = redis.call('HGET', KEYS[1], 'generation')
if cur == false or cur == ARGV[1] then
  redis.call('HSET', KEYS[1], 'generation', ARGV[2], 'spent', ARGV[3], 'refusedInRow', ARGV[4], 'rules', ARGV[5])
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
end
return redis.call('HMGET', KEYS[1], 'generation', 'spent', 'refusedInRow', 'rules')
`;

/** Where the subject whose record is at `redisKey` stands (FIRST when never advanced, expired or unreadable). */
export async function readGenerations(redis: Redis, redisKey: string): Promise<SubjectGenerations> {
  return parseGenerations(await redis.hmget(redisKey, ...FIELDS));
}

/** Moves the subject at `redisKey` from generation `from` to `next` unless moved already; returns where it stands. */
export async function advanceGenerations(redis: Redis, redisKey: string, from: number, next: SubjectGenerations): Promise<SubjectGenerations> {
  const out = (await evalScript(redis, ADVANCE_LUA, 1, redisKey, String(from), String(next.generation), String(next.spent), String(next.refusedInRow), next.rules.join(','), String(GENERATIONS_TTL_MS))) as Array<string | null>;
  return parseGenerations(out);
}

function parseGenerations(values: ReadonlyArray<string | null>): SubjectGenerations {
  const parsed = storedSchema.safeParse(Object.fromEntries(FIELDS.map((f, i) => [f, values[i] ?? undefined])));
  return parsed.success ? parsed.data : { ...FIRST, rules: [] };
}
