import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { chunk, pubkey } from '../schemas.js';

/**
 * At most this many mints per `/ultra/v1/shield` request. The service documents no limit; every mint adds ~45
 * characters to the URL, and 1,001 mints (45 KB) passed the 16 KB header limit of common servers (HTTP 431), which
 * failed the market feed every tick. 50, like `/price/v3`, keeps the URL near 2.3 KB.
 */
export const SHIELD_MINTS_PER_REQUEST = 50;

/** Warning types the spec lists. `type` itself is parsed as a string: templated types like `5%_TRANSFER_FEES` exist. */
export const SHIELD_WARNING_TYPES = [
  'NOT_VERIFIED',
  'LOW_LIQUIDITY',
  'NOT_SELLABLE',
  'LOW_ORGANIC_ACTIVITY',
  'HAS_MINT_AUTHORITY',
  'HAS_FREEZE_AUTHORITY',
  'HAS_PERMANENT_DELEGATE',
  'NEW_LISTING',
  'VERY_LOW_TRADING_ACTIVITY',
  'HIGH_SUPPLY_CONCENTRATION',
  'NON_TRANSFERABLE',
  'MUTABLE_TRANSFER_FEES',
  'SUSPICIOUS_DEV_ACTIVITY',
  'SUSPICIOUS_TOP_HOLDER_ACTIVITY',
  'HIGH_SINGLE_OWNERSHIP',
  '{}%_TRANSFER_FEES',
] as const;

/** One Shield warning about a mint. */
export const shieldWarningSchema = z.object({
  type: z.string().min(1),
  /** Human-readable text, for display only; never match on it. */
  message: z.string().optional(),
  severity: z.enum(['info', 'warning', 'critical']),
  /** External source, e.g. `RugCheck`. */
  source: z.string().optional(),
});
/** A parsed Shield warning. */
export type ShieldWarning = z.output<typeof shieldWarningSchema>;

/** The /ultra/v1/shield body: `{warnings: {<mint>: ShieldWarning[]}}`. */
export const shieldResponseSchema = z.object({
  warnings: z.record(z.string(), z.array(shieldWarningSchema)),
});

/** Warnings keyed by mint; every requested mint is present, with `[]` when it has none. */
export type ShieldWarnings = Record<string, ShieldWarning[]>;

/** Parameters of getShield. */
export interface GetShieldParams {
  /** Mints to check; duplicates are removed. Any number: one request per 50 distinct mints. */
  mints: readonly string[];
}

/**
 * GET /ultra/v1/shield: safety warnings per mint, one request per 50 distinct mints, merged into one map. A
 * requested mint the service leaves out maps to `[]`.
 */
export async function getShield(client: JupiterTransport, params: GetShieldParams, options: CallOptions = {}): Promise<ShieldWarnings> {
  const mints = [...new Set(params.mints)];
  if (mints.length === 0) throw new LimitError('ultra.shield', 'shield.mints.empty', 'at least one mint is required');
  for (const mint of mints) {
    if (!pubkey.safeParse(mint).success) throw new LimitError('ultra.shield', 'shield.mints.address', `not a base58 mint address: ${JSON.stringify(mint)}`);
  }
  const replies = await Promise.all(
    chunk(mints, SHIELD_MINTS_PER_REQUEST).map((batch) =>
      client.request({
        endpoint: 'ultra.shield',
        method: 'GET',
        path: '/ultra/v1/shield',
        query: { mints: batch.join(',') },
        schema: shieldResponseSchema,
        signal: options.signal,
      }),
    ),
  );
  const warnings: ShieldWarnings = {};
  for (const reply of replies) Object.assign(warnings, reply.warnings);
  const out: ShieldWarnings = {};
  for (const mint of mints) out[mint] = warnings[mint] ?? [];
  for (const [mint, list] of Object.entries(warnings)) out[mint] ??= list;
  return out;
}
