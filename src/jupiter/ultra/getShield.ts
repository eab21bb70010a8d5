import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { pubkey } from '../schemas.js';

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
  /** Mints to check; duplicates are removed. */
  mints: readonly string[];
}

/** GET /ultra/v1/shield: safety warnings per mint. A requested mint the service leaves out maps to `[]`. */
export async function getShield(client: JupiterTransport, params: GetShieldParams, options: CallOptions = {}): Promise<ShieldWarnings> {
  const mints = [...new Set(params.mints)];
  if (mints.length === 0) throw new LimitError('ultra.shield', 'shield.mints.empty', 'at least one mint is required');
  for (const mint of mints) {
    if (!pubkey.safeParse(mint).success) throw new LimitError('ultra.shield', 'shield.mints.address', `not a base58 mint address: ${JSON.stringify(mint)}`);
  }
  const { warnings } = await client.request({
    endpoint: 'ultra.shield',
    method: 'GET',
    path: '/ultra/v1/shield',
    query: { mints: mints.join(',') },
    schema: shieldResponseSchema,
    signal: options.signal,
  });
  const out: ShieldWarnings = {};
  for (const mint of mints) out[mint] = warnings[mint] ?? [];
  for (const [mint, list] of Object.entries(warnings)) out[mint] ??= list;
  return out;
}
