import type { Logger } from '../lib/logger.js';
import type { Intent } from '../sdk/intents.js';
import type { MarketData } from './ports.js';

/** A landed intent as the accounting reads it. */
export interface LandedIntent {
  id: string;
  instance: string;
  intent: Intent;
  signature: string | null;
  quote: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
}

/** One swap fill, valued at feed prices. */
export interface FillRecord {
  inputMint: string;
  inAmount: bigint;
  inUsd: number;
  outputMint: string;
  outAmount: bigint;
  outUsd: number;
}

/** What recording a landing needs. */
export interface LandingPorts {
  intent(id: string): Promise<LandedIntent | undefined>;
  market(): Promise<MarketData | undefined>;
  /** The fee the landed transaction paid, from the chain; null when unknown. */
  feeOf(signature: string): Promise<bigint | null>;
  recordFee(intentId: string, lamports: bigint, now: number): Promise<void>;
  recordFill(instance: string, fill: FillRecord): Promise<void>;
  logger: Logger;
}

/**
 * Books a landed intent: the fee its transaction paid (against the daily fee budget, once per intent) and, for a
 * swap, the fill at feed prices for the instance's P&L. What cannot be known (no fee record, no price) is logged
 * and left out, never guessed.
 */
export async function recordLanding(id: string, ports: LandingPorts, now: number): Promise<void> {
  const rec = await ports.intent(id);
  if (!rec) return;
  if (rec.signature) {
    const fee = await ports.feeOf(rec.signature).catch((err: unknown) => {
      ports.logger.warn({ intent: id, err: err instanceof Error ? err.message : String(err) }, 'could not read the fee of a landed transaction; not counted against the daily fee budget');
      return null;
    });
    if (fee !== null) await ports.recordFee(id, fee, now);
  }
  if (rec.intent.kind !== 'swap') return;
  const market = await ports.market();
  const r = rec.result ?? {};
  const q = rec.quote ?? {};
  const inAmount = toBig(r.inAmount) ?? toBig(q.inAmount) ?? rec.intent.amount;
  const outAmount = toBig(r.outAmount) ?? toBig(q.outAmount);
  const pin = market?.prices[rec.intent.inputMint];
  const pout = market?.prices[rec.intent.outputMint];
  if (outAmount === undefined || !pin || !pout) {
    ports.logger.debug({ intent: id }, 'no prices for both legs; P&L not recorded for this fill');
    return;
  }
  await ports.recordFill(rec.instance, {
    inputMint: rec.intent.inputMint,
    inAmount,
    inUsd: (Number(inAmount) / 10 ** pin.decimals) * pin.usd,
    outputMint: rec.intent.outputMint,
    outAmount,
    outUsd: (Number(outAmount) / 10 ** pout.decimals) * pout.usd,
  });
}

function toBig(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  return undefined;
}
