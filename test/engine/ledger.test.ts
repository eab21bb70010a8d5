import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { IntentStore } from '../../src/store/intents.js';
import { clearNamespace } from '../../src/store/redis.js';
import type { Intent } from '../../src/sdk/intents.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const swap: Intent = { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 1_000n };

describe('the intent ledger', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `test-ledger-${process.pid}`;
  const store = new IntentStore(redis, prefix);
  beforeAll(async () => clearNamespace(redis, prefix));
  afterAll(async () => {
    await clearNamespace(redis, prefix);
    await redis.quit();
  });
  const rec = (id: string) => ({ id, instance: 'i', strategy: 's@1.0.0', intent: swap, createdAt: 1, deadline: 2 });

  it('records an intent once: a second create with the same id changes nothing', async () => {
    expect(await store.create(rec('a'))).toEqual({ created: true, state: 'planned' });
    await store.move('a', null, 'built', { requestId: 'r1' });
    expect(await store.create(rec('a'))).toEqual({ created: false, state: 'built' });
    expect((await store.get('a'))?.requestId).toBe('r1');
  });

  it('round-trips the intent with its bigint amounts', async () => {
    await store.create(rec('b'));
    const got = await store.get('b');
    expect(got?.intent).toEqual(swap);
    expect(got?.signatures).toEqual([]);
  });

  it('refuses a move carrying an old fence once another owner claimed the intent', async () => {
    await store.create(rec('c'));
    const first = await store.claim('c');
    const second = await store.claim('c');
    expect(await store.move('c', first, 'built')).toMatchObject({ ok: false, reason: 'fence' });
    expect(await store.move('c', second, 'built')).toMatchObject({ ok: true, from: 'planned' });
  });

  it('refuses moves the state machine does not allow, and never leaves a terminal state', async () => {
    await store.create(rec('d'));
    expect(await store.move('d', null, 'landed')).toMatchObject({ ok: false, reason: 'state', state: 'planned' });
    await store.move('d', null, 'built');
    await store.move('d', null, 'guarded');
    await store.move('d', null, 'signed', { signature: 'sig1', signatures: ['sig1'], lastValidBlockHeight: 123n, signedTx: 'AQID' });
    expect(await store.move('d', null, 'built')).toMatchObject({ ok: false, reason: 'state' });
    await store.move('d', null, 'submitted');
    await store.move('d', null, 'landed', { result: { outAmount: 5n } });
    for (const to of ['planned', 'failed', 'expired', 'submitted'] as const) expect((await store.move('d', null, to)).ok).toBe(false);
    const got = await store.get('d');
    expect(got).toMatchObject({ state: 'landed', signature: 'sig1', lastValidBlockHeight: 123n, result: { outAmount: 5n } });
  });

  it('records a risk-gate rejection directly, with its reason, and counts states', async () => {
    expect(await store.create({ ...rec('e'), rejection: { code: 'RISK_NOTIONAL', rule: 'max-notional-per-order', message: 'too big' } })).toEqual({ created: true, state: 'rejected' });
    expect((await store.get('e'))?.error).toEqual({ code: 'RISK_NOTIONAL', rule: 'max-notional-per-order', message: 'too big' });
    const counts = await store.countByState();
    expect(counts.rejected).toBeGreaterThanOrEqual(1);
    expect(await store.liveIds()).not.toContain('e');
  });

  describe('when one record is corrupt (a bad write, a hand edit)', () => {
    it('still lists every other intent, and names the corrupt one with what is wrong', async () => {
      await store.create({ ...rec('f'), createdAt: 10 });
      await store.create({ ...rec('g'), createdAt: 11 });
      await store.create({ ...rec('h'), createdAt: 12 });
      await redis.hset(`${prefix}:intent:g`, 'intent', '{"kind":"swap","amount":');
      await redis.hset(`${prefix}:intent:h`, 'state', 'teleported');

      const listing = await store.list();
      expect(listing.records.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
      expect(listing.corrupt).toEqual([
        { id: 'g', problem: expect.stringMatching(/JSON/) },
        { id: 'h', problem: expect.stringMatching(/^state: /) },
      ]);
      expect((await store.all()).map((r) => r.id)).toEqual(listing.records.map((r) => r.id));
      expect((await store.recent(3)).map((r) => r.id)).toEqual(['f']);
      // Reading that one record on its own still refuses it: the executor must not act on a record it cannot read.
      await expect(store.get('g')).rejects.toThrow();
    });
  });
});
