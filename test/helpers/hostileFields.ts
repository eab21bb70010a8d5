// The response fields a hostile venue edits so that they agree with the transaction it rewrote (or lie about it).
import type { SimToken } from '../../src/sim/catalog.js';
import type { Venue } from '../../src/sim/venue.js';
import { feedWorth, type Attack, type Rewrite } from './hostileAttacks.js';

/** Edits an Ultra order's amount fields to match the rewrite (lowered payout, or another mint claimed as asked). */
export function lieAboutAmounts(body: Record<string, unknown>, rewrite: Rewrite, attack: Attack, t: { venue: Venue; output: SimToken; asked: SimToken }): void {
  if (rewrite.outAmount !== undefined) setOut(body, rewrite.outAmount);
  if (attack.kind === 'output-mint' && (attack.claim ?? 'asked') === 'asked') claimAsked(body, t.venue, t.output, t.asked);
}

/** Sets outAmount, scaling otherAmountThreshold, the last leg's output and the USD value with it. */
export function setOut(body: Record<string, unknown>, out: bigint): void {
  const before = BigInt(String(body.outAmount));
  const scale = (v: unknown): string => (before > 0n ? ((BigInt(String(v)) * out) / before).toString() : '0');
  body.otherAmountThreshold = scale(body.otherAmountThreshold);
  if (typeof body.outUsdValue === 'number' && before > 0n) body.outUsdValue = (body.outUsdValue * Number(out)) / Number(before);
  const plan = Array.isArray(body.routePlan) ? (body.routePlan as Array<{ swapInfo?: Record<string, unknown> }>) : [];
  const last = plan.at(-1)?.swapInfo;
  if (last) last.outAmount = scale(last.outAmount);
  body.outAmount = out.toString();
}

/** Makes an order or quote in `real` claim to pay out `asked`, at the feed's worth of what it really pays. */
export function claimAsked(body: Record<string, unknown>, venue: Venue, real: SimToken, asked: SimToken): void {
  const realOut = BigInt(String(body.outAmount));
  const claimed = feedWorth(venue, real, asked, realOut);
  const before = realOut > 0n ? realOut : 1n;
  body.otherAmountThreshold = ((BigInt(String(body.otherAmountThreshold)) * claimed) / before).toString();
  body.outAmount = claimed.toString();
  body.outputMint = asked.mint;
  if (body.feeMint === real.mint) body.feeMint = asked.mint;
  const plan = Array.isArray(body.routePlan) ? (body.routePlan as Array<{ swapInfo?: Record<string, unknown> }>) : [];
  const last = plan.at(-1)?.swapInfo;
  if (last) {
    last.outputMint = asked.mint;
    last.outAmount = claimed.toString();
    if (last.feeMint === real.mint) last.feeMint = asked.mint;
  }
}

/** What identifies a quote the proxy served when it comes back in a /swap body. */
export function quoteKey(q: Record<string, unknown>): string {
  return JSON.stringify([q.inputMint, q.outputMint, q.inAmount, q.outAmount, q.otherAmountThreshold, q.contextSlot, q.timeTaken]);
}
