import bs58 from 'bs58';
import { PublicKey } from '@solana/web3.js';
import { z } from 'zod';
import { FINALITY_SLOTS } from '../chain/chain.js';
import { GENESIS_SLOT, SLOT_MS } from '../clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Venue } from '../venue.js';
import { RpcCode, RpcError } from './jsonrpc.js';
import { BoundedCache } from '../boundedCache.js';

/** What every HTTP RPC method gets: the venue of this request (a reset replaces it) and a logger. */
export interface RpcEnv {
  venue: Venue;
  logger: Logger;
}

/** The Agave version the simulator's RPC reports (getVersion, context.apiVersion). */
export const SOLANA_CORE_VERSION = '2.2.16';
/** The feature-set id getVersion reports. */
export const FEATURE_SET = 3_294_202_862;

/**
 * Keys parsed so far, by their text: a parse decodes and re-encodes base58 (about 25 us), and the guard asks about
 * the same few dozen addresses in every batch. Always correct: the result depends on the text alone, and a
 * PublicKey is never mutated. Bounded, oldest dropped first; only valid keys are kept.
 */
const parsedKeys = new BoundedCache<string, PublicKey>(10_000);

/** A base58 public key parameter, parsed into a PublicKey. */
export const pubkeyParam = z.string({ error: 'expected a base58 public key string' }).transform((s, c) => {
  const known = parsedKeys.get(s);
  if (known) return known;
  try {
    const key = new PublicKey(s);
    if (key.toBase58() === s) return parsedKeys.set(s, key);
  } catch {
    // reported below
  }
  c.addIssue({ code: 'custom', message: 'is not a valid base58 public key' });
  return z.NEVER;
});

/** A base58 transaction signature parameter (64 bytes). */
export const signatureParam = z.string({ error: 'expected a base58 signature string' }).refine((s) => {
  try {
    return s.length <= 88 && bs58.decode(s).length === 64;
  } catch {
    return false;
  }
}, 'is not a valid base58 signature');

/** Commitment levels, with the deprecated names RPC nodes still accept mapped to the current three. */
export const commitmentParam = z
  .enum(['processed', 'confirmed', 'finalized', 'recent', 'single', 'singleGossip', 'root', 'max'])
  .transform((c): Commitment => (c === 'recent' ? 'processed' : c === 'single' || c === 'singleGossip' ? 'confirmed' : c === 'root' || c === 'max' ? 'finalized' : c));

/** A commitment level. */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

const slotNumber = z.number().int('must be an integer').nonnegative();

/** The fields every read method's config accepts. Unknown fields are ignored, as newer clients send some. */
export const readConfigFields = { commitment: commitmentParam.optional(), minContextSlot: slotNumber.optional() };

/** A config object with the common read fields plus `fields`; absent or null means all defaults. */
export function configParam<F extends z.ZodRawShape>(fields: F) {
  return z.looseObject({ ...readConfigFields, ...fields }).nullish();
}

/**
 * The config of a method that takes a commitment only (getTokenAccountBalance, getTokenSupply): other fields,
 * minContextSlot included, are ignored, as Agave's CommitmentConfig ignores them.
 */
export const commitmentOnlyParam = z.looseObject({ commitment: commitmentParam.optional() }).nullish();

/** Encodings of account data. Binary data defaults to base64 (what web3.js asks for). */
export const accountEncodingParam = z.enum(['base58', 'base64', 'jsonParsed']);
/** An account-data encoding. */
export type AccountEncoding = z.output<typeof accountEncodingParam>;

/** A slice of account data to return. */
export const dataSliceParam = z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() });
/** A slice of account data. */
export type DataSlice = z.output<typeof dataSliceParam>;

/** The slot a commitment level sees now: finalized trails the tip by the finality depth. */
export function slotAt(venue: Venue, commitment: Commitment | undefined): bigint {
  const slot = venue.clock.slot();
  return (commitment ?? 'finalized') === 'finalized' ? slot - FINALITY_SLOTS : slot;
}

/**
 * The context slot of a read at a commitment; throws -32016 when the caller asks for a later minimum context slot
 * than that, as a lagging node does.
 */
export function contextSlot(venue: Venue, config: { commitment?: Commitment | undefined; minContextSlot?: number | undefined } | null | undefined): bigint {
  const slot = slotAt(venue, config?.commitment);
  if (config?.minContextSlot !== undefined && BigInt(config.minContextSlot) > slot) {
    throw new RpcError(RpcCode.minContextSlotNotReached, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
  return slot;
}

/** A value with its RPC context: `{context: {apiVersion, slot}, value}`. */
export function withContext<T>(slot: bigint, value: T): { context: { apiVersion: string; slot: bigint }; value: T } {
  return { context: { apiVersion: SOLANA_CORE_VERSION, slot }, value };
}

/** Unix seconds at which a slot's block was produced. */
export function blockTimeOf(venue: Venue, slot: bigint): number {
  return Math.floor((venue.clock.startMs + Number(slot - GENESIS_SLOT) * SLOT_MS) / 1000);
}
