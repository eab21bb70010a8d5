import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Intent } from '../../src/sdk/intents.js';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore } from '../../src/store/intents.js';
import { runKeeperCli, startTestRedis, type TestRedis } from '../helpers/keeper.js';
import { SOL, USDC, WALLET } from './fixtures.js';

const PREFIX = 'corrupt-cli';
const swap: Intent = { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 10_000_000n };

// One damaged intent hash (a bad state written by hand, a half-migrated record) must not hide every other intent
// from the operator: `intents` names it on stderr and lists the rest, `status` still reports.
describe('the read-only commands with a corrupt intent record', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
    const r = redis.client();
    await r.hset(`${PREFIX}:meta`, { venue: 'simulator', wallet: WALLET, startedAt: String(Date.now()), strategies: JSON.stringify([{ id: 'dca', strategy: 'dca-swap', version: '1.0.0', schedule: { every: 2000 } }]) });
    const store = new IntentStore(r, PREFIX);
    const now = Date.now();
    for (const id of ['dca.swap.good', 'dca.swap.bad', 'dca.swap.refused']) await store.create({ id, instance: 'dca', strategy: 'dca-swap@1.0.0', intent: swap, createdAt: now, deadline: now + 60_000 });
    await store.move('dca.swap.refused', null, 'rejected', { error: { code: 'GUARD_REFUSED', message: 'destination: 1 lamports of SOL would go to X' } });
    await r.hset(`${PREFIX}:intent:dca.swap.bad`, 'state', 'exploded');
    await r.sadd(`${PREFIX}:intents:state:rejected`, 'dca.swap.bad');
    await new StrategyStateStore(r, PREFIX).recordDecision('dca', { at: now, window: '1', outcome: 'intents', intents: [{ id: 'dca.swap.bad', kind: 'swap', state: 'planned' }, { id: 'dca.swap.good', kind: 'swap', state: 'planned' }] });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('intents lists the readable records and names the corrupt one on stderr', async () => {
    const r = await runKeeperCli(['intents', '--redis-url', redis.url, '--prefix', PREFIX, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ id: string }>).map((x) => x.id)).toEqual(['dca.swap.good', 'dca.swap.refused']);
    expect(r.stderr).toMatch(/intent dca\.swap\.bad is corrupt and left out: state/);
  }, 30_000);

  it('status still reports the keeper, its refusals and its last decision', async () => {
    const r = await runKeeperCli(['status', '--redis-url', redis.url, '--prefix', PREFIX, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { guardRefusals: Array<{ id: string }>; strategies: Array<{ lastDecision: { intents: Array<{ id: string; state: string }> } }> };
    expect(doc.guardRefusals.map((g) => g.id)).toEqual(['dca.swap.refused']);
    expect(doc.strategies[0]!.lastDecision.intents).toEqual([{ id: 'dca.swap.bad', kind: 'swap', state: 'planned' }, { id: 'dca.swap.good', kind: 'swap', state: 'planned' }]);
  }, 30_000);
});
