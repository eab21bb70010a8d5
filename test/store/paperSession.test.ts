import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Intent } from '../../src/sdk/intents.js';
import { IntentStore } from '../../src/store/intents.js';
import { KeeperStore, readVenueOrders } from '../../src/store/keeperStore.js';
import { KillSwitchStore } from '../../src/store/killSwitch.js';
import { PAPER_SESSION_ENDED, rollOverPaperSession } from '../../src/store/paperSession.js';
import { PnlStore } from '../../src/store/pnl.js';
import { readTrades } from '../../src/store/trades.js';
import { startTestRedis, type TestRedis } from '../helpers/keeper.js';

const P = 'paper-roll';
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const ORDER = 'FYXvA9zr65eKumdxjuMw6eS1BfJAs5M9rfno2h1muCGN';
const swap: Intent = { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 10_000_000n };

describe('a new paper session on a prefix with an earlier one (history kept)', () => {
  let redis: TestRedis;
  let result: Awaited<ReturnType<typeof rollOverPaperSession>>;
  const now = Date.now();

  beforeAll(async () => {
    redis = await startTestRedis();
    const r = redis.client();
    const intents = new IntentStore(r, P);
    const create = (id: string, intent: Intent) => intents.create({ id, instance: 'dca', strategy: 'dca@1', intent, createdAt: now - 60_000, deadline: now + 60_000 });
    await create('dca.swap.landed', swap);
    for (const to of ['built', 'guarded', 'signed', 'landed'] as const) await intents.move('dca.swap.landed', null, to, to === 'signed' ? { signature: 'sig1', signatures: ['sig1'] } : to === 'landed' ? { result: { inAmount: 10_000_000n, outAmount: 1_800_000n } } : {});
    await create('dca.swap.planned', swap);
    await create('dca.swap.submitted', swap);
    for (const to of ['built', 'guarded', 'signed', 'submitted'] as const) await intents.move('dca.swap.submitted', null, to, to === 'signed' ? { signature: 'sig2', signatures: ['sig2'] } : {});
    const limit: Intent = { kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 10_000_000n, takingAmount: 55_000_000n };
    await create('ladder.trigger.create.1', limit);
    for (const to of ['built', 'guarded', 'signed', 'landed'] as const) await intents.move('ladder.trigger.create.1', null, to, to === 'built' ? { quote: { order: ORDER } } : to === 'signed' ? { signature: 'sig3', signatures: ['sig3'] } : {});
    await new KeeperStore(r, P, intents).setVenueOrder('ladder.trigger.create.1', { product: 'trigger', order: ORDER, position: null, status: 'open', checkedAt: now, changedAt: now });
    await new PnlStore(r, P).recordFill('dca', { inputMint: SOL, inAmount: 10_000_000n, inUsd: 1.8, outputMint: USDC, outAmount: 1_800_000n, outUsd: 1.79 });
    await new KillSwitchStore(r, P).engage('halt', 'operator: stop', 'cli', now);
    await r.set(`${P}:snap:wallet`, 'old wallet');
    await r.set(`${P}:strategy:dca`, 'old state');
    await r.set(`${P}:risk:peak`, '1000');
    await r.hset(`${P}:meta`, { wallet: 'OldWallet', startedAt: String(now - 100_000) });
    await r.rpush(`${P}:execute:wait`, 'dca.swap.planned');
    await r.set('other-prefix:snap:wallet', 'not ours');
    result = await rollOverPaperSession(r, P, now);
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('expires what was still in flight: it can never land on the new chain, and the new wallet must not execute it', async () => {
    expect(result.expired).toBe(2);
    const { records } = await new IntentStore(redis.client(), P).list();
    const state = Object.fromEntries(records.map((x) => [x.id, x.state]));
    expect(state).toEqual({ 'dca.swap.landed': 'landed', 'dca.swap.planned': 'expired', 'dca.swap.submitted': 'expired', 'ladder.trigger.create.1': 'landed' });
    expect(records.find((x) => x.id === 'dca.swap.planned')?.error?.code).toBe(PAPER_SESSION_ENDED);
  });

  it('keeps the ledger (trades still lists the earlier swap) and ends the orders left on the old venue', async () => {
    expect(result.keptIntents).toBe(4);
    const trades = await readTrades(redis.client(), P);
    expect(trades.map((t) => [t.intent, t.kind])).toEqual([['dca.swap.landed', 'swap']]);
    const venue = await readVenueOrders(redis.client(), P, ['ladder.trigger.create.1']);
    expect(venue.get('ladder.trigger.create.1')?.status).toBe('expired');
  });

  it('keeps realised P&L but not the old wallet holdings of the books, keeps the kill switch, and drops the rest', async () => {
    const r = redis.client();
    const fields = await r.hkeys(`${P}:pnl:dca`);
    expect(fields.sort()).toEqual(['fills', 'realizedUsd', 'volumeUsd']);
    expect((await new PnlStore(r, P).summary('dca')).fills).toBe(1);
    expect((await new KillSwitchStore(r, P).read())?.reason).toBe('operator: stop');
    for (const k of [`${P}:snap:wallet`, `${P}:strategy:dca`, `${P}:risk:peak`, `${P}:meta`, `${P}:execute:wait`, `${P}:intents:active`]) expect(await r.exists(k), k).toBe(0);
    expect(await r.get('other-prefix:snap:wallet')).toBe('not ours');
  });
});
