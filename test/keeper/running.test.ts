// Acceptance (issue 10, items 4, 5 and 8) through a running keeper (startKeeper in-process: scheduler and workers,
// BullMQ on its own Redis, the real executor) whose strategy leaves a limit order, a recurring order and a
// prediction buy open on the simulator (frozen clock: nothing fills on its own):
// - an order filled or cancelled on the venue behind the bot's back is in the ledger after one keeper cycle;
// - after the venue resolves the market, the winning position is claimed once and $1 a contract arrives;
// - `jup-keeper status` shows the keeper jobs' last runs and the claim made;
// - `jup-keeper kill-switch on --mode halt --cancel-resting` leaves the wallet with no open trigger, recurring or
//   prediction order on the venue, through cancel intents that pass the halt they were asked by.
import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { Keypair } from '@solana/web3.js';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { parseConfig } from '../../src/config/load.js';
import { KEEPER_INSTANCE, KEEPER_TASKS } from '../../src/engine/keeperPorts.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { startKeeper, type RunningKeeper } from '../../src/main.js';
import { HotWallet } from '../../src/solana/wallet.js';
import { IntentStore, type IntentRecord } from '../../src/store/intents.js';
import { keeperKeys, readVenueOrders } from '../../src/store/keeperStore.js';
import { KillSwitchStore } from '../../src/store/killSwitch.js';
import { createRegistry } from '../../strategies/index.js';
import { restingOrders } from '../fixtures/strategies/restingOrders.js';
import { cliJson, waitUntil } from '../helpers/e2e.js';
import { runKeeperCli, useKeeperEnv } from '../helpers/keeper.js';
import { airdrop, balances, control, ledger, signBase64, SOL, USDC } from '../helpers/sim.js';

/** What the keeper logged, parsed. */
type LogLine = Record<string, unknown> & { msg: string; level: number };

describe('a running keeper with resting orders on the venue', { timeout: 180_000 }, () => {
  const env = useKeeperEnv('keeper-running', { sim: { clockSpeed: 0 } });
  const running: RunningKeeper[] = [];
  afterEach(async () => {
    for (const k of running.splice(0)) await k.close();
  });
  const jup = () => createJupiterClient({ baseUrl: env.sim.url, tier: 'off' });

  /** Starts a keeper on a fresh funded wallet whose strategy places its three orders in `marketId`. */
  async function start(label: string, marketId: string) {
    const prefix = `${label}-${randomUUID().slice(0, 6)}`;
    // The owner's key: the keeper loads it as its hot wallet, and the test signs with it outside the bot.
    const owner = Keypair.generate();
    const wallet = HotWallet.fromSecret(bs58.encode(owner.secretKey));
    await airdrop(env.sim, wallet.address, SOL, 2_000_000_000n);
    await airdrop(env.sim, wallet.address, USDC, 1_000_000_000n);
    const config = parseConfig(keeperYaml(env.sim.url, prefix, marketId), `${label}.yaml`, createRegistry([restingOrders]), { PATH: process.env.PATH });
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as LogLine) });
    const keeper = await startKeeper({ config, role: 'all', redisUrl: env.redis.url, prefix, venueUrl: env.sim.url, rpcUrl: `${env.sim.url}/rpc`, wallet, logger });
    running.push(keeper);
    const redis = env.redis.client();
    const store = new IntentStore(redis, prefix);
    onTestFailed(() => {
      console.error(lines.filter((l) => l.level >= 40 || /venue order|claim|cancel/.test(l.msg)).slice(-40).map((l) => JSON.stringify(l).slice(0, 400)).join('\n'));
    });
    return { prefix, wallet, owner, redis, store, lines, keeper };
  }

  /** The strategy's three order intents once all landed, and what the reconciliation recorded on each. */
  async function landedOrders(redis: Redis, store: IntentStore, prefix: string) {
    return waitUntil('the strategy\'s three orders landed and seen open on the venue', async () => {
      const mine = (await store.all()).filter((r) => r.instance === 'resting');
      if (mine.length !== 3 || mine.some((r) => r.state !== 'landed')) return undefined;
      const venue = await readVenueOrders(redis, prefix, mine.map((r) => r.id));
      if (mine.some((r) => !venue.get(r.id)?.status)) return undefined;
      const byKind = (k: string) => mine.find((r) => r.kind === k)!;
      return { trigger: byKind('trigger.create'), recurring: byKind('recurring.create'), prediction: byKind('prediction.buy'), venue };
    }, 60_000);
  }

  /** An open market the strategy may buy into, of an event no other test of this file uses. */
  const usedEvents = new Set<string>();
  async function market() {
    const page = await jup().prediction.getEvents({ includeMarkets: true });
    for (const e of page.data) {
      if (usedEvents.has(e.eventId)) continue;
      const m = e.markets.find((x) => x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd < 900_000n && (x.closeTime ?? 0) * 1000 > Date.now() + 3_600_000);
      if (!m) continue;
      usedEvents.add(e.eventId);
      return m;
    }
    throw new Error('no open market left');
  }

  /** Resolves once a run of `task` that started after `since` has been recorded; returns it. */
  async function runAfter(redis: Redis, prefix: string, task: string, since: number) {
    return waitUntil(`a ${task} run started after ${since}`, async () => {
      const raw = await redis.hget(keeperKeys(prefix).runs, task);
      const run = raw ? (JSON.parse(raw) as { at: number; outcome: string }) : undefined;
      return run && run.at > since ? run : undefined;
    }, 30_000, 50);
  }

  it('updates the ledger within one cycle when orders are filled or cancelled behind its back, claims the winning position once, and status shows it', async () => {
    const m = await market();
    const k = await start('running-a', m.marketId);
    const { trigger, recurring, prediction, venue } = await landedOrders(k.redis, k.store, k.prefix);
    expect(venue.get(trigger.id)).toMatchObject({ product: 'trigger', status: 'open' });
    expect(venue.get(prediction.id)).toMatchObject({ product: 'prediction', order: prediction.quote!.order, position: prediction.quote!.position, status: 'open' });
    const recurringOrder = venue.get(recurring.id)!.order!;
    expect(recurringOrder).toEqual(expect.any(String));

    // Behind the bot's back: the venue fills the limit order and the prediction buy; the owner cancels the
    // recurring order through the API.
    await control(env.sim, '/orders/fill', { order: venue.get(trigger.id)!.order });
    await control(env.sim, '/orders/fill', { order: prediction.quote!.order });
    const cancel = await jup().recurring.cancelOrder({ order: recurringOrder, user: k.wallet.address, recurringType: 'time' });
    await jup().recurring.execute({ signedTransaction: signBase64(cancel.transaction, k.owner), requestId: cancel.requestId });
    const actedAt = Date.now();

    // The first venue reconciliation that starts after that has updated the ledger.
    await runAfter(k.redis, k.prefix, 'venue-reconcile', actedAt);
    const after = await readVenueOrders(k.redis, k.prefix, [trigger.id, recurring.id, prediction.id]);
    expect(after.get(trigger.id)).toMatchObject({ status: 'filled' });
    expect(after.get(recurring.id)).toMatchObject({ status: 'cancelled', order: recurringOrder });
    expect(after.get(prediction.id)).toMatchObject({ status: 'filled' });
    expect(k.lines).toContainEqual(expect.objectContaining({ msg: 'venue order ended: cancelled; ledger updated', intent: recurring.id, from: expect.stringMatching(/^(open|partially-filled)$/), to: 'cancelled' }));

    // The venue resolves the market YES: the keeper claims the position, once, and $1 a contract arrives.
    const position = (await jup().prediction.getPredictionPositions({ ownerPubkey: k.wallet.address })).data[0]!;
    const before = (await balances(env.sim, k.wallet.address)).tokens[USDC]!;
    await control(env.sim, '/prediction/resolve', { marketId: m.marketId, result: 'yes' });
    const claim = await waitUntil('the keeper\'s claim landed', async () => (await k.store.all()).find((r) => r.instance === KEEPER_INSTANCE && r.kind === 'prediction.claim' && r.state === 'landed'), 60_000);
    expect(claim.intent).toMatchObject({ kind: 'prediction.claim', positionPubkey: position.pubkey });
    expect((await balances(env.sim, k.wallet.address)).tokens[USDC]! - before).toBe(position.contractsMicro!);
    // Two more claims cycles change nothing.
    await runAfter(k.redis, k.prefix, 'claims', (await runAfter(k.redis, k.prefix, 'claims', claim.updatedAt)).at);
    expect((await ledger(env.sim)).filter((t) => t.wallet === k.wallet.address && t.kind === 'prediction-claim')).toHaveLength(1);
    expect((await k.store.all()).filter((r) => r.kind === 'prediction.claim')).toHaveLength(1);

    // status: every keeper job's last run (when, outcome), and the claim made.
    await runAfter(k.redis, k.prefix, 'sweep', claim.updatedAt);
    const status = await cliJson<{ keeperJobs: { runs: Record<string, { at: number; outcome: string; summary: string }>; claims: Array<{ id: string; position: string; state: string; payoutMicroUsd: string }> } }>(['status', '--redis-url', env.redis.url, '--prefix', k.prefix, '--json']);
    for (const task of KEEPER_TASKS) expect(status.keeperJobs.runs[task], task).toMatchObject({ at: expect.any(Number), outcome: 'ok', summary: expect.any(String) });
    expect(status.keeperJobs.claims).toEqual([expect.objectContaining({ id: claim.id, position: position.pubkey, state: 'landed', payoutMicroUsd: position.contractsMicro!.toString() })]);
    const text = await runKeeperCli(['status', '--redis-url', env.redis.url, '--prefix', k.prefix]);
    expect(text.stdout).toMatch(/keeper jobs\n\s+JOB\s+LAST RUN\s+OUTCOME/);
    expect(text.stdout).toMatch(/claims made \(latest 1\)[\s\S]*landed/);
    // No keeper job failed or warned along the way, and nothing at all was logged as an error.
    expect(k.lines.filter((l) => (l.level >= 40 && (l.component === 'keeper' || l.queue === 'keeper')) || l.level >= 50)).toEqual([]);
  });

  it('kill-switch on --cancel-resting leaves the wallet with no open trigger, recurring or prediction order', async () => {
    const m = await market();
    const k = await start('running-b', m.marketId);
    await landedOrders(k.redis, k.store, k.prefix);
    const open = async () => {
      const c = jup();
      const [t, r, p] = await Promise.all([
        c.trigger.getOrders({ user: k.wallet.address, orderStatus: 'active' }),
        c.recurring.getOrders({ user: k.wallet.address, orderStatus: 'active', recurringType: 'time' }),
        c.prediction.getPredictionOrders({ ownerPubkey: k.wallet.address }),
      ]);
      return { trigger: t.orders.length, recurring: r.orders.length, prediction: p.data.length };
    };
    expect(await open()).toEqual({ trigger: 1, recurring: 1, prediction: 1 });

    const cli = ['--redis-url', env.redis.url, '--prefix', k.prefix, '--json'];
    const on = await cliJson<Record<string, unknown>>(['kill-switch', 'on', '--mode', 'halt', '--cancel-resting', '--reason', 'e2e: cancel resting', ...cli]);
    expect(on).toMatchObject({ engaged: true, mode: 'halt', reason: 'e2e: cancel resting', by: 'cli' });

    await waitUntil('no resting order on the venue', async () => {
      const o = await open();
      return o.trigger + o.recurring + o.prediction === 0;
    }, 60_000);
    const switchStore = new KillSwitchStore(k.redis, k.prefix);
    const done = await waitUntil('the cancel-resting request done', async () => {
      const s = await switchStore.read();
      return s?.cancelResting?.doneAt ? s : undefined;
    }, 30_000);
    expect(done).toMatchObject({ mode: 'halt', reason: 'e2e: cancel resting', cancelResting: { requestedAt: done.at, doneAt: expect.any(Number) } });

    // Three cancels, recorded by the keeper under the request's key, landed through the executor past the halt.
    const cancels = (await k.store.all()).filter((r: IntentRecord) => r.instance === KEEPER_INSTANCE);
    expect(cancels.map((r) => [r.kind, r.state, r.intent.key]).sort()).toEqual([
      ['prediction.closeOrder', 'landed', `cancel-resting-${done.at}`],
      ['recurring.cancel', 'landed', `cancel-resting-${done.at}`],
      ['trigger.cancel', 'landed', `cancel-resting-${done.at}`],
    ]);
    // Nothing of the wallet's is left in an escrow.
    const escrows = await control<{ escrows: Array<{ wallet: string; amount: string }> }>(env.sim, '/escrows', undefined, 'GET');
    expect(escrows.escrows.filter((e) => e.wallet === k.wallet.address && e.amount !== '0')).toEqual([]);
    // The reconciliation sees them cancelled.
    const orders = (await k.store.all()).filter((r) => r.instance === 'resting');
    await runAfter(k.redis, k.prefix, 'venue-reconcile', Math.max(...cancels.map((r) => r.updatedAt)));
    const venue = await readVenueOrders(k.redis, k.prefix, orders.map((r) => r.id));
    expect(orders.map((r) => venue.get(r.id)?.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);

    // `kill-switch status --json` prints the switch's five fields (and the prefix), nothing of the request.
    const status = await cliJson<Record<string, unknown>>(['kill-switch', 'status', ...cli]);
    expect(status).toEqual({ prefix: k.prefix, engaged: true, mode: 'halt', reason: 'e2e: cancel resting', by: 'cli', at: done.at });
    const human = await runKeeperCli(['kill-switch', 'status', '--redis-url', env.redis.url, '--prefix', k.prefix]);
    expect(human.stdout).toMatch(/resting orders: none left/);
    expect(k.lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});

/** The keeper's config: the simulator venue, fast feeds and keeper jobs, one resting-orders strategy. */
function keeperYaml(venueUrl: string, prefix: string, marketId: string): string {
  return `venue:
  kind: simulator
  url: ${venueUrl}
wallet:
  paper: true               # the keeper is handed its wallet by the test
redis:
  prefix: ${prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  concurrency: 2
  jobLock: 15s
  reconcileEvery: 2s
  deadline: 10m
feeds:
  prices: 1s
  wallet: 1s
  prediction: 5s
keeper:
  claimEvery: 1s
  reconcileVenueEvery: 1s
  staleOrderEvery: 1m
  staleOrderAge: 1h
  sweepEvery: 2s
  cancelRestingEvery: 1s
logging:
  level: info
strategies:
  - id: resting
    strategy: resting-orders
    schedule:
      every: 1s
    params:
      marketId: ${marketId}
`;
}
