import { z } from 'zod';

/** Schema primitives shared by the endpoint files. Amounts become bigint in base units at this boundary. */

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A base58 Solana address (mint, wallet, account). */
export const pubkey = z.string().regex(BASE58, 'expected a base58 address');

/** A raw u64 amount sent as a string of digits, parsed to bigint. A non-numeric value is rejected. */
export const u64 = z
  .string()
  .regex(/^\d+$/, 'expected an integer amount as a string of digits')
  .transform((s) => BigInt(s));

/** A signed integer sent as a string, parsed to bigint. */
export const i64 = z
  .string()
  .regex(/^-?\d+$/, 'expected an integer as a string')
  .transform((s) => BigInt(s));

/** An integer amount sent either as a digit string or a JSON integer, parsed to bigint. */
export const u64Loose = z.union([
  u64,
  z
    .number()
    .int('expected an integer amount')
    .nonnegative('expected a non-negative amount')
    .refine((n) => Number.isSafeInteger(n), 'integer amount is beyond 2^53 and lost precision in JSON')
    .transform((n) => BigInt(n)),
]);

/** A signed integer sent as a digit string or a JSON integer, parsed to bigint (e.g. P&L in micro-USD). */
export const i64Loose = z.union([
  i64,
  z
    .number()
    .int('expected an integer')
    .refine((n) => Number.isSafeInteger(n), 'integer is beyond 2^53 and lost precision in JSON')
    .transform((n) => BigInt(n)),
]);

/** A decimal number sent as a string ("0.9998"), kept as a number: prices and rates, never amounts. */
export const decimalString = z
  .string()
  .regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'expected a decimal number as a string')
  .transform((s) => Number(s));

/** A number that may arrive as a JSON number or a decimal string (observed for rates and UI amounts). */
export const looseNumber = z.union([z.number(), decimalString]);

/** A base64 string (a serialized transaction). */
export const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64');

/** A non-empty base64 transaction. */
export const base64Tx = base64.min(1, 'expected a non-empty base64 transaction');

/** One instruction as the swap-instructions and lend -instructions endpoints return it. */
export const instructionSchema = z.object({
  programId: pubkey,
  accounts: z.array(z.object({ pubkey, isSigner: z.boolean(), isWritable: z.boolean() })),
  data: base64,
});
/** A parsed instruction. */
export type ApiInstruction = z.output<typeof instructionSchema>;

/** Nullable and optional: what many optional fields of the API really are. */
export function maybe<T extends z.ZodType>(schema: T) {
  return schema.nullish();
}

/** Splits a list into chunks of at most `size` items. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
