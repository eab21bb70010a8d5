// What a landing announces (issue 13, items 3 and 5): the 'filled' log record in base units with what it takes to
// read them, the same as a fill event; a claim as 'claimed'; a refusal of the execution as a refusal event.
import { describe, expect, it } from 'vitest';
import { announceLanding, announceRefusal, type LandedIntent } from '../../src/engine/landings.js';
import type { KeeperEvent } from '../../src/lib/events.js';
import { createLogger, onLoggedError } from '../../src/lib/logger.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';

function ports() {
  const lines: Array<Record<string, unknown>> = [];
  const events: KeeperEvent[] = [];
  const logger = createLogger({ destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  return { lines, events, p: { logger, events: { publish: (e: KeeperEvent) => void events.push(e) } } };
}

const market = { at: 0, prices: { [SOL]: { usd: 148.2, decimals: 9 }, [USDC]: { usd: 1, decimals: 6 } } } as never;

describe('when an intent lands', () => {
  it('a swap is logged as filled with its executed amounts and price, and published as a fill', () => {
    const { lines, events, p } = ports();
    const rec: LandedIntent = { id: 'i1', instance: 'dca-sol-usdc', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 50_000_000n, reason: 'dca' } as never, signature: 'SIG', quote: { inAmount: '50000000', outAmount: '7400000' }, result: { inAmount: '50000000', outAmount: '7410000' } };
    announceLanding(rec, market, 5000n, p, 1_000);
    const leg = (mint: string, symbol: string, amount: string, decimals: number) => ({ mint, symbol, amount, decimals });
    expect(lines).toEqual([expect.objectContaining({ msg: 'filled', instance: 'dca-sol-usdc', intent: 'i1', kind: 'swap', signature: 'SIG', in: leg(SOL, 'SOL', '50000000', 9), out: leg(USDC, 'USDC', '7410000', 6), price: expect.closeTo(148.2, 6), priceUnit: 'USD/SOL', usd: expect.closeTo(7.41, 6), feeLamports: '5000' })]);
    expect(events).toEqual([{ type: 'fill', at: 1_000, instance: 'dca-sol-usdc', intent: 'i1', kind: 'swap', signature: 'SIG', in: leg(SOL, 'SOL', '50000000', 9), out: leg(USDC, 'USDC', '7410000', 6), price: expect.closeTo(148.2, 6), priceUnit: 'USD/SOL', usd: expect.closeTo(7.41, 6), feeLamports: '5000' }]);
  });

  it('a limit order is announced with both its terms, a mint the feed does not price with its known decimals', () => {
    const { events, p } = ports();
    announceLanding({ id: 'i2', instance: 'ladder', intent: { kind: 'trigger.create', inputMint: USDC, outputMint: JUP, makingAmount: 8_000_000n, takingAmount: 10_000_000n } as never, signature: 'S2', quote: null, result: {} }, market, null, p, 2_000);
    expect(events[0]).toMatchObject({ type: 'fill', kind: 'trigger.create', in: { symbol: 'USDC', amount: '8000000', decimals: 6 }, out: { symbol: 'JUP', amount: '10000000', decimals: 6 }, price: 0.8, priceUnit: 'USD/JUP', usd: 8 });
  });

  it('a claim is logged as claimed and published as a claim; one the venue made itself announces nothing', () => {
    const { lines, events, p } = ports();
    const claim = { id: 'c1', instance: '_keeper', intent: { kind: 'prediction.claim', positionPubkey: 'P', reason: 'claim $10 of a settled winning position in M' } as never, signature: 'S3', quote: null, result: { slot: 1 } };
    announceLanding(claim, market, 5000n, p, 3_000);
    announceLanding({ ...claim, id: 'c2', signature: null, result: { alreadyDone: { code: 'JUP_PREDICTION_ALREADY_CLAIMED' } } }, market, null, p, 3_000);
    expect(lines.map((l) => l.msg)).toEqual(['claimed']);
    expect(events).toEqual([{ type: 'claim', at: 3_000, instance: '_keeper', intent: 'c1', signature: 'S3', reason: 'claim $10 of a settled winning position in M', feeLamports: '5000' }]);
  });

  it('a refusal of the execution is published with its rule', () => {
    const { events, p } = ports();
    announceRefusal({ id: 'r1', instance: 'dca', intent: { kind: 'swap' } as never, error: { code: 'GUARD_REFUSED', rule: 'outflow', message: 'SOL leaves the wallet' } }, p.events, 4_000);
    announceRefusal({ id: 'r2', instance: 'dca', intent: { kind: 'swap' } as never, error: { code: 'KILL_SWITCH', message: 'halted' } }, p.events, 4_000);
    expect(events).toEqual([
      { type: 'refusal', at: 4_000, instance: 'dca', intent: 'r1', kind: 'swap', rule: 'outflow', message: 'SOL leaves the wallet' },
      { type: 'refusal', at: 4_000, instance: 'dca', intent: 'r2', kind: 'swap', rule: 'KILL_SWITCH', message: 'halted' },
    ]);
  });

  it('every line logged at error level is told to the listeners, with its component and error', () => {
    const seen: Array<{ component?: string | undefined; message: string }> = [];
    const stop = onLoggedError((e) => seen.push(e));
    const logger = createLogger({ destination: { write: () => undefined } });
    logger.child({ component: 'workers' }).error({ err: new Error('Missing key') }, 'worker error');
    logger.error('plain');
    logger.warn('not an error');
    stop();
    logger.error('after unsubscribing');
    expect(seen).toEqual([{ component: 'workers', message: 'worker error: Missing key' }, { component: undefined, message: 'plain' }]);
  });
});
