import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollOverPaperSession } from '../../src/store/paperSession.js';
import { PnlStore } from '../../src/store/pnl.js';
import { beginSession, readSessions, sessionAt, startSession } from '../../src/store/sessions.js';
import { startTestRedis, type TestRedis } from '../helpers/keeper.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('sessions', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('numbers each start, and a time belongs to the last session started at or before it', async () => {
    const r = redis.client();
    const P = 'sessions-numbered';
    expect(await beginSession(r, P, 1_000)).toEqual({ id: 1, startedAt: 1_000 });
    // A worker joining the deployment takes the current session; a scheduler's start begins the next.
    expect(await startSession(r, P, 'worker', 1_500)).toEqual({ id: 1, startedAt: 1_000 });
    expect(await startSession(r, P, 'scheduler', 2_000)).toEqual({ id: 2, startedAt: 2_000 });
    const all = await readSessions(r, P);
    expect(all).toEqual([{ id: 1, startedAt: 1_000 }, { id: 2, startedAt: 2_000 }]);
    expect(sessionAt(all, 999)).toBeUndefined();
    expect(sessionAt(all, 1_999)?.id).toBe(1);
    expect(sessionAt(all, 2_000)?.id).toBe(2);
    expect(await r.hget(`${P}:meta`, 'session')).toBe('2');
  });

  it("tells a P&L book's current session from every session", async () => {
    const r = redis.client();
    const P = 'sessions-pnl';
    const pnl = new PnlStore(r, P);
    await beginSession(r, P, 1_000);
    // Session 1: buy 1 SOL for $100, sell it for $110: +$10 realised.
    await pnl.recordFill('dca', { inputMint: USDC, inAmount: 100_000_000n, inUsd: 100, outputMint: SOL, outAmount: 1_000_000_000n, outUsd: 100 });
    await pnl.recordFill('dca', { inputMint: SOL, inAmount: 1_000_000_000n, inUsd: 110, outputMint: USDC, outAmount: 110_000_000n, outUsd: 110 });
    await beginSession(r, P, 2_000);
    expect(await pnl.summary('dca', 'session')).toEqual({ realizedUsd: 0, volumeUsd: 0, fills: 0 });
    // Session 2: buy 1 SOL for $100, sell it for $95: -$5 realised.
    await pnl.recordFill('dca', { inputMint: USDC, inAmount: 100_000_000n, inUsd: 100, outputMint: SOL, outAmount: 1_000_000_000n, outUsd: 100 });
    await pnl.recordFill('dca', { inputMint: SOL, inAmount: 1_000_000_000n, inUsd: 95, outputMint: USDC, outAmount: 95_000_000n, outUsd: 95 });
    const session = await pnl.summary('dca', 'session');
    expect(session.realizedUsd).toBeCloseTo(-5, 9);
    expect(session.fills).toBe(2);
    const all = await pnl.summary('dca', 'all');
    expect(all.realizedUsd).toBeCloseTo(5, 9);
    expect(all.fills).toBe(4);
    expect(await pnl.realizedTotalUsd('session')).toBeCloseTo(-5, 9);
  });

  it('survives a paper rollover, which begins no session itself', async () => {
    const r = redis.client();
    const P = 'sessions-paper';
    await beginSession(r, P, 1_000);
    await rollOverPaperSession(r, P, 1_500);
    expect(await readSessions(r, P)).toEqual([{ id: 1, startedAt: 1_000 }]);
    expect((await beginSession(r, P, 2_000)).id).toBe(2);
  });
});
