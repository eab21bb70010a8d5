import type { EventPublisher, FillLeg, KeeperEvent } from '../lib/events.js';
import { fillLeg, fillPrice } from '../lib/fills.js';
import type { Logger } from '../lib/logger.js';
import { USDC_MINT } from '../lib/mints.js';
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
  /** Where the fill (or claim) is announced; nothing when not given. */
  events?: EventPublisher | undefined;
  logger: Logger;
}

/** What follows an execution in the worker that ran it (see afterExecution). */
export interface ExecutionPorts extends LandingPorts {
  /** The intent's record with why it was refused, for the refusal's announcement. */
  refused(id: string): Promise<Parameters<typeof announceRefusal>[0]>;
}

/**
 * What follows an execution in the worker that ran it: a landing booked and announced, a refusal announced. Nothing
 * when another worker took the intent over meanwhile (`superseded`): that one books it.
 */
export async function afterExecution(id: string, result: { state: string; superseded?: boolean | undefined }, ports: ExecutionPorts, now: number): Promise<void> {
  if (result.superseded) return;
  if (result.state === 'landed') await recordLanding(id, ports, now);
  else if (result.state === 'rejected') announceRefusal(await ports.refused(id), ports.events, now);
}

/**
 * Books a landed intent: the fee its transaction paid (against the daily fee budget, once per intent) and, for a
 * swap, the fill at feed prices for the instance's P&L. What cannot be known (no fee record, no price) is logged
 * and left out, never guessed.
 */
export async function recordLanding(id: string, ports: LandingPorts, now: number): Promise<void> {
  const rec = await ports.intent(id);
  if (!rec) return;
  let fee: bigint | null = null;
  if (rec.signature) {
    fee = await ports.feeOf(rec.signature).catch((err: unknown) => {
      ports.logger.warn({ intent: id, err: err instanceof Error ? err.message : String(err) }, 'could not read the fee of a landed transaction; not counted against the daily fee budget');
      return null;
    });
    if (fee !== null) await ports.recordFee(id, fee, now);
  }
  const market = await ports.market();
  announceLanding(rec, market, fee, ports, now);
  if (rec.intent.kind !== 'swap') return;
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

/**
 * Says what a landing did: one log line ('filled', or 'claimed' for a claim) with the amounts in base units and what
 * it takes to read them (symbols, decimals, the executed price), and the same as an event. A landing the venue
 * reported as done by someone else (`alreadyDone`: a claim made by the venue itself) did nothing of ours: silent.
 */
export function announceLanding(rec: LandedIntent, market: MarketData | undefined, feeLamports: bigint | null, ports: Pick<LandingPorts, 'events' | 'logger'>, now: number): void {
  if (rec.result && 'alreadyDone' in rec.result) return;
  const fee = feeLamports === null ? {} : { feeLamports: feeLamports.toString() };
  if (rec.intent.kind === 'prediction.claim') {
    ports.logger.info({ instance: rec.instance, intent: rec.id, kind: rec.intent.kind, signature: rec.signature, reason: rec.intent.reason, ...fee }, 'claimed');
    ports.events?.publish({ type: 'claim', at: now, instance: rec.instance, intent: rec.id, signature: rec.signature, reason: rec.intent.reason ?? '', ...fee });
    return;
  }
  const legs = landingLegs(rec, (mint) => market?.prices[mint]?.decimals);
  const price = legs.in && legs.out ? fillPrice(legs.in, legs.out) : undefined;
  const usd = legs.in ? usdOf(legs.in, market) ?? (legs.out ? usdOf(legs.out, market) : undefined) : undefined;
  const event: KeeperEvent = {
    type: 'fill',
    at: now,
    instance: rec.instance,
    intent: rec.id,
    kind: rec.intent.kind,
    signature: rec.signature,
    ...legs,
    ...(price ? { price: price.price, priceUnit: price.unit } : {}),
    ...(usd !== undefined ? { usd } : {}),
    ...fee,
  };
  const { type: _type, at: _at, ...fields } = event;
  ports.logger.info(fields, 'filled');
  ports.events?.publish(event);
}

/** The legs of a landed intent: a swap's executed amounts (else its quote's), an order's or deposit's amount. */
function landingLegs(rec: LandedIntent, decimalsOf: (mint: string) => number | undefined): { in?: FillLeg; out?: FillLeg } {
  const i = rec.intent;
  const leg = (mint: string, amount: bigint) => fillLeg(mint, amount, decimalsOf(mint));
  switch (i.kind) {
    case 'swap': {
      const r = rec.result ?? {};
      const q = rec.quote ?? {};
      const exactOut = i.swapMode === 'ExactOut';
      const inAmount = toBig(r.inAmount) ?? toBig(q.inAmount) ?? (exactOut ? undefined : i.amount);
      const outAmount = toBig(r.outAmount) ?? toBig(q.outAmount) ?? (exactOut ? i.amount : undefined);
      return { ...(inAmount !== undefined ? { in: leg(i.inputMint, inAmount) } : {}), ...(outAmount !== undefined ? { out: leg(i.outputMint, outAmount) } : {}) };
    }
    case 'trigger.create':
      return { in: leg(i.inputMint, i.makingAmount), out: leg(i.outputMint, i.takingAmount) };
    case 'recurring.create':
      return { in: leg(i.inputMint, i.inAmount) };
    case 'lend.deposit':
    case 'lend.withdraw':
    case 'send':
      return { in: leg(i.kind === 'send' ? i.mint : i.asset, i.amount) };
    case 'prediction.buy':
      return { in: leg(i.depositMint ?? USDC_MINT, i.depositAmount) };
    default:
      return {};
  }
}

function usdOf(leg: FillLeg, market: MarketData | undefined): number | undefined {
  const p = market?.prices[leg.mint];
  return p ? (Number(leg.amount) / 10 ** leg.decimals) * p.usd : undefined;
}

/**
 * Announces an intent the execution refused (the pre-sign guard, the kill switch, a venue's refusal): an event with
 * the rule and the reason. Risk-gate refusals are announced where the gate runs (evaluate).
 */
export function announceRefusal(rec: { id: string; instance: string; intent: Intent; error: { code: string; message: string; rule?: string | undefined } | null } | undefined, events: EventPublisher | undefined, now: number): void {
  if (!rec || !events) return;
  events.publish({ type: 'refusal', at: now, instance: rec.instance, intent: rec.id, kind: rec.intent.kind, rule: rec.error?.rule ?? rec.error?.code ?? 'unknown', message: rec.error?.message ?? 'rejected' });
}
