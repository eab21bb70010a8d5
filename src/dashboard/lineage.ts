import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { formatUnits } from '../lib/amounts.js';
import { knownByMint } from '../lib/mints.js';
import type { Intent } from '../sdk/intents.js';
import { IntentStore, type IntentRecord } from '../store/intents.js';
import { readVenueOrders } from '../store/keeperStore.js';
import type { MarketSnapshot } from '../store/snapshots.js';

/** Intents the status page lists, newest first. */
export const LINEAGE_LIMIT = 25;

/** One intent with its lineage: intent → execute job → transaction signature(s) → fill, claim or failure. */
export interface IntentLineage {
  id: string;
  strategy: string;
  kind: string;
  /** What it asks for, in human units ("0.01 SOL → USDC"). */
  what: string;
  state: string;
  reason: string | null;
  createdAt: number;
  updatedAt: number;
  attempt: number;
  /** The BullMQ execute job of the intent (its id is the intent's), as the queue has it now; null once removed or never queued. */
  job: { id: string; state: string; attemptsMade: number; failedReason: string | null; processedOn: number | null; finishedOn: number | null } | null;
  /** Signature of every attempt, oldest first. */
  signatures: string[];
  /** What it came to. */
  outcome:
    | { kind: 'fill'; in: string; out: string; priceUsd: number | null }
    | { kind: 'claim'; payoutUsd: string | null }
    | { kind: 'order'; product: string; order: string | null; status: string | null }
    | { kind: 'landed' }
    | { kind: 'failure'; code: string; rule: string | null; message: string }
    | null;
}

/** The latest intents with their lineage, newest first. */
export async function readLineage(redis: Redis, prefix: string, execute: Queue, market: MarketSnapshot | undefined, limit = LINEAGE_LIMIT): Promise<IntentLineage[]> {
  const records = await new IntentStore(redis, prefix).recent(limit);
  const venue = await readVenueOrders(redis, prefix, records.map((r) => r.id));
  const jobs = await Promise.all(records.map((r) => jobOf(execute, r.id)));
  return records.map((r, i) => {
    const v = venue.get(r.id);
    return {
      id: r.id,
      strategy: r.instance,
      kind: r.kind,
      what: describe(r.intent, market),
      state: r.state,
      reason: r.intent.reason ?? null,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      attempt: r.attempt,
      job: jobs[i] ?? null,
      signatures: r.signatures.length > 0 ? r.signatures : r.signature ? [r.signature] : [],
      outcome: r.error ? { kind: 'failure', code: r.error.code, rule: r.error.rule ?? null, message: r.error.message } : v ? { kind: 'order', product: v.product, order: v.order, status: v.status } : r.state === 'landed' ? landedOutcome(r, market) : null,
    };
  });
}

async function jobOf(queue: Queue, id: string): Promise<IntentLineage['job']> {
  const job = await queue.getJob(id);
  if (!job?.id) return null;
  return { id: job.id, state: await job.getState(), attemptsMade: job.attemptsMade, failedReason: job.failedReason || null, processedOn: job.processedOn ?? null, finishedOn: job.finishedOn ?? null };
}

function landedOutcome(r: IntentRecord, market: MarketSnapshot | undefined): IntentLineage['outcome'] {
  if (r.intent.kind === 'swap') {
    const res = r.result ?? {};
    const q = r.quote ?? {};
    const inAmount = big(res.inAmount) ?? big(q.inAmount) ?? r.intent.amount;
    const outAmount = big(res.outAmount) ?? big(q.outAmount);
    const pin = market?.prices[r.intent.inputMint]?.usd;
    const inHuman = Number(inAmount) / 10 ** decimalsOf(r.intent.inputMint, market);
    const outHuman = outAmount === undefined ? undefined : Number(outAmount) / 10 ** decimalsOf(r.intent.outputMint, market);
    return {
      kind: 'fill',
      in: human(r.intent.inputMint, inAmount, market),
      out: outAmount === undefined ? `? ${symbol(r.intent.outputMint, market)}` : human(r.intent.outputMint, outAmount, market),
      // The price of the input in USD the fill achieved (output per input, valued at the output's feed price), else the feed's.
      priceUsd: outHuman !== undefined && inHuman > 0 && market?.prices[r.intent.outputMint] ? (outHuman * market.prices[r.intent.outputMint]!.usd) / inHuman : (pin ?? null),
    };
  }
  if (r.intent.kind === 'prediction.claim') {
    const payout = r.quote?.payoutMicroUsd;
    return { kind: 'claim', payoutUsd: typeof payout === 'bigint' ? formatUnits(payout, 6) : null };
  }
  // An order placed on the venue, before the venue reconciliation has read how it stands.
  if (r.intent.kind === 'trigger.create' || r.intent.kind === 'recurring.create' || r.intent.kind === 'prediction.buy') return { kind: 'order', product: r.intent.kind.split('.')[0]!, order: null, status: 'placed' };
  return { kind: 'landed' };
}

/** An intent in a few words, amounts in human units. */
export function describe(intent: Intent, market: MarketSnapshot | undefined): string {
  const h = (mint: string, amount: bigint) => human(mint, amount, market);
  const s = (mint: string) => symbol(mint, market);
  switch (intent.kind) {
    case 'swap':
      return intent.swapMode === 'ExactOut' ? `${s(intent.inputMint)} → ${h(intent.outputMint, intent.amount)}` : `${h(intent.inputMint, intent.amount)} → ${s(intent.outputMint)}`;
    case 'trigger.create':
      return `limit: ${h(intent.inputMint, intent.makingAmount)} for ${h(intent.outputMint, intent.takingAmount)}`;
    case 'recurring.create':
      return `recurring: ${h(intent.inputMint, intent.inAmount)} → ${s(intent.outputMint)}`;
    case 'lend.deposit':
    case 'lend.withdraw':
      return `${intent.kind === 'lend.deposit' ? 'deposit' : 'withdraw'} ${h(intent.asset, intent.amount)}`;
    case 'send':
      return `send ${h(intent.mint, intent.amount)}`;
    default:
      return intent.kind;
  }
}

function human(mint: string, amount: bigint, market: MarketSnapshot | undefined): string {
  const d = knownByMint(mint)?.decimals ?? market?.prices[mint]?.decimals;
  return d === undefined ? `${amount} base units of ${symbol(mint, market)}` : `${formatUnits(amount, d)} ${symbol(mint, market)}`;
}

function decimalsOf(mint: string, market: MarketSnapshot | undefined): number {
  return knownByMint(mint)?.decimals ?? market?.prices[mint]?.decimals ?? 0;
}

function symbol(mint: string, market: MarketSnapshot | undefined): string {
  return knownByMint(mint)?.symbol ?? market?.tokens[mint]?.symbol ?? `${mint.slice(0, 4)}…${mint.slice(-4)}`;
}

function big(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return undefined;
}
