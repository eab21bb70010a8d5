import { PublicKey } from '@solana/web3.js';
import { z } from 'zod';

/*
 * The field types the Jupiter specs use in requests, as the simulator reads them. Written from the OpenAPI files in
 * /work/shared/reference/openapi and jupiter-api.md, not taken from the client (src/jupiter): the simulator is the
 * judge of what the client sends, so it must not share the client's assumptions (issue 22, item 4).
 */

const U64_MAX = (1n << 64n) - 1n;

/** A base58 public key (a mint, wallet or account): exactly the canonical encoding of 32 bytes. */
export const address = z.string({ error: 'is required' }).refine((s) => {
  try {
    return new PublicKey(s).toBase58() === s;
  } catch {
    return false;
  }
}, 'is not a valid base58 address');

/** Turns a digit string into a u64 greater than 0, or adds an issue. */
function positiveU64(s: string, ctx: z.RefinementCtx): bigint {
  if (!/^\d+$/.test(s)) {
    ctx.addIssue({ code: 'custom', message: 'must be an integer amount in base units' });
    return z.NEVER;
  }
  const n = BigInt(s);
  if (n <= 0n || n > U64_MAX) {
    ctx.addIssue({ code: 'custom', message: 'must be greater than 0 and fit in a u64' });
    return z.NEVER;
  }
  return n;
}

/**
 * A raw amount the spec types `string` (u64 in base units): digits only, greater than 0. A JSON number is refused,
 * as the type says.
 */
export const u64String = z.string({ error: 'must be a string of digits' }).transform(positiveU64);

/** A raw amount the spec types `anyOf: [string, number]` (prediction): digits or a JSON integer, greater than 0. */
export const u64StringOrNumber = z.union([z.string(), z.number()], { error: 'must be a string of digits or an integer' }).transform((v, ctx) => {
  if (typeof v === 'number' && !Number.isSafeInteger(v)) {
    ctx.addIssue({ code: 'custom', message: 'must be an integer amount in base units' });
    return z.NEVER;
  }
  return positiveU64(String(v), ctx);
});

/** An amount the spec types as a JSON integer (int64, uint64): a safe integer within bounds (JSON loses the rest). */
export function jsonInt(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.number({ error: 'must be an integer' }).int('must be an integer').min(min).max(max);
}

/** An integer query parameter within bounds (digits in the query string; a sign, fraction or exponent is refused). */
export function queryInt(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string({ error: 'is required' })
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int('must be an integer').min(min).max(max));
}

/** A boolean query parameter: "true" or "false". */
export const queryBool = z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true');

/** A comma-separated list in one query parameter: trimmed, empty items and repeats dropped. */
export function commaList<T extends z.ZodType<unknown, string>>(item: T, min: number, max: number, what: string) {
  return z
    .string({ error: 'is required' })
    .transform((s) => [...new Set(s.split(',').map((p) => p.trim()).filter((p) => p !== ''))])
    .pipe(z.array(item).min(min, `must name at least ${min} ${what}`).max(max, `names more than ${max} ${what}`));
}

/** A request id or signed transaction field: a string, not empty. */
export const nonEmpty = z.string({ error: 'is required' }).min(1, 'is required');
