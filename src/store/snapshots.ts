import type { Redis } from 'ioredis';
import { z } from 'zod';
import { decodeJson, encodeJson } from '../lib/json.js';
import type { PricePoint } from '../sdk/context.js';
import { PriceHistoryReader, writeMarketWithHistory, type PriceHistoryOptions } from './priceHistory.js';

/** Market and account snapshots the feeds write and evaluate reads. Parsed on read: Redis is a boundary too. */

const big = z.bigint();
const priceSchema = z.object({ usd: z.number(), decimals: z.number().int(), change24h: z.number().nullable() });
const warningSchema = z.object({ type: z.string(), severity: z.string(), message: z.string() });
const tokenSchema = z.object({ mint: z.string(), symbol: z.string(), decimals: z.number().int(), verified: z.boolean().nullable(), warnings: z.array(warningSchema) });

/** Prices and token facts of the watched mints. */
export const marketSnapshotSchema = z.object({
  at: z.number(),
  prices: z.record(z.string(), priceSchema),
  tokens: z.record(z.string(), tokenSchema),
});
/** A market snapshot. */
export type MarketSnapshot = z.output<typeof marketSnapshotSchema>;

const marketViewSchema = z.object({
  marketId: z.string(),
  eventId: z.string().nullable(),
  title: z.string(),
  status: z.string(),
  result: z.enum(['yes', 'no']).nullable(),
  isTradable: z.boolean(),
  closeTime: z.number().nullable(),
  buyYesMicroUsd: big.nullable(),
  buyNoMicroUsd: big.nullable(),
  sellYesMicroUsd: big.nullable(),
  sellNoMicroUsd: big.nullable(),
});

/** Prediction events of the watched categories and markets. */
export const predictionSnapshotSchema = z.object({
  at: z.number(),
  events: z.array(z.object({ eventId: z.string(), title: z.string(), category: z.string().nullable(), markets: z.array(marketViewSchema) })),
});
/** A prediction snapshot. */
export type PredictionSnapshot = z.output<typeof predictionSnapshotSchema>;

/** The wallet: balances, open orders and positions. */
export const walletSnapshotSchema = z.object({
  /** When its first read began (unix ms): a landing recorded before this is in it. */
  at: z.number(),
  /**
   * When its last read ended (unix ms): an intent decided after this was sent after it, and is not in it. Between
   * the two, an intent of the wallet's that was being sent may or may not be in it. Absent in snapshots of earlier
   * versions (then `at`).
   */
  readAt: z.number().optional(),
  /**
   * The wallet's intents that were sent while it was read, by id, and whether their transaction is in the reads: `in`
   * (it had settled before they began), `out` (not settled when they ended), `unsure` (it settled while they ran).
   */
  sent: z.record(z.string(), z.enum(['in', 'out', 'unsure'])).optional(),
  address: z.string(),
  lamports: big,
  holdings: z.array(z.object({ mint: z.string(), amount: big, decimals: z.number().int() })),
  trigger: z.array(z.object({ order: z.string(), inputMint: z.string(), outputMint: z.string(), makingAmount: big, takingAmount: big, remainingMakingAmount: big })),
  recurring: z.array(z.object({ order: z.string(), inputMint: z.string(), outputMint: z.string(), inDeposited: big, inUsed: big, outReceived: big })),
  lend: z.array(z.object({ asset: z.string(), shares: big, underlyingAssets: big })),
  prediction: z.array(z.object({ positionPubkey: z.string(), marketId: z.string(), isYes: z.boolean(), contractsMicro: big, avgPriceMicroUsd: big.nullable(), claimable: z.boolean(), claimed: z.boolean() })),
  /** The products' share tokens among the holdings, valued from the chain (ShareTokenData); absent before they were read. */
  shareTokens: z.array(z.object({ mint: z.string(), symbol: z.string(), product: z.literal('lend'), asset: z.string(), account: z.string(), shares: big, exchangePrice: big, underlyingAssets: big })).optional(),
  /** Feeds that failed on the last run, with why; the rest of the snapshot is still fresh. */
  errors: z.record(z.string(), z.string()).default({}),
});
/** A wallet snapshot. */
export type WalletSnapshot = z.output<typeof walletSnapshotSchema>;

const SCHEMAS = { market: marketSnapshotSchema, prediction: predictionSnapshotSchema, wallet: walletSnapshotSchema } as const;
type Name = keyof typeof SCHEMAS;
type Of<N extends Name> = z.output<(typeof SCHEMAS)[N]>;

/**
 * Reads and writes snapshots under `<prefix>:snap:<name>`. A snapshot read again unchanged is not parsed again: the
 * last parse of each is kept (with the text it came from), so the shards of one tick parse each snapshot once.
 * With `priceHistory`, writing the market snapshot also samples its prices into the price history, in the same round
 * trip (see priceHistory.ts), and `priceHistory()` reads it.
 */
export class SnapshotStore {
  private readonly parsed = new Map<Name, { text: string; value: unknown }>();
  private readonly history: PriceHistoryReader | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: { priceHistory?: PriceHistoryOptions | undefined } = {},
  ) {
    this.history = options.priceHistory ? new PriceHistoryReader(redis, prefix, options.priceHistory.keepMs) : undefined;
  }

  async write<N extends Name>(name: N, value: Of<N>): Promise<void> {
    const key = `${this.prefix}:snap:${name}`;
    const { priceHistory } = this.options;
    // The name says which snapshot the value is (a generic parameter does not narrow).
    if (name === 'market' && priceHistory) await writeMarketWithHistory(this.redis, this.prefix, priceHistory, key, encodeJson(value), value as MarketSnapshot);
    else await this.redis.set(key, encodeJson(value));
  }

  /**
   * The kept price history of each mint (USD per whole token, oldest first, within the retention at `now`), in one
   * round trip for all of them, or none when this store read them since the market snapshot of time `asOf` was
   * seen; empty series without `priceHistory`.
   */
  async priceHistory(mints: readonly string[], now: number, asOf?: number): Promise<Map<string, readonly PricePoint[]>> {
    if (!this.history) return new Map();
    return this.history.read(mints, now, asOf);
  }

  /** The snapshot, or undefined when none was written yet. A corrupt one throws, naming the field. */
  async read<N extends Name>(name: N): Promise<Of<N> | undefined> {
    const text = await this.redis.get(`${this.prefix}:snap:${name}`);
    if (text === null) return undefined;
    const last = this.parsed.get(name);
    if (last && last.text === text) return last.value as Of<N>;
    const value = SCHEMAS[name].parse(decodeJson(text)) as Of<N>;
    this.parsed.set(name, { text, value });
    return value;
  }
}
