import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Keypair, PublicKey } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { BadRequestError } from '../../src/jupiter/errors.js';
import { readPredictionErrorBody, type SignablePredictionOrderBuild } from '../../src/jupiter/prediction/index.js';
import { JUPUSD_MINT, USDC_MINT } from '../../src/lib/mints.js';
import type { SimPosition } from '../../src/sim/products/predictionBook.js';
import { AUTO_CLAIM_MS } from '../../src/sim/products/predictionKeeper.js';
import { PROVIDERS, type ProviderId } from '../../src/sim/products/predictionMarkets.js';
import { vaultAddress } from '../../src/jupiter/programs/prediction.js';
import { decodePositionAccount } from '../../src/jupiter/programs/predictionAccounts.js';
import { positionAddress } from '../../src/sim/products/predictionSeeds.js';
import { Rng } from '../../src/sim/rng.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { airdrop, control, ledger, signBase64, startTestSim, SOL } from '../helpers/sim.js';


/** A fixed start: the same seed then lists the same markets and plays the same sequence on every run. */
const START_MS = Date.UTC(2026, 10, 5, 2, 45);
const MINTS = [USDC_MINT, JUPUSD_MINT] as const;
/** Each wallet's airdrop of each stable: $3,000. */
const FUNDS = 3_000_000_000n;
const WALLETS = 3;
const STEPS = 60;
const SEEDS = [1, 2, 3, 4, 5];
/** 0.01 contract, the smallest quantity a sell takes. */
const STEP = 10_000n;
const MICRO = 1_000_000n;
/** Transactions held for a later step at most at once. */
const HELD_MAX = 3;

/** An escrow of GET /__sim/escrows. */
type Escrow = Record<'address' | 'product' | 'authority' | 'wallet' | 'mint' | 'amount', string>;
/** One question of the pool: its market on each provider. */
type Question = { title: string; markets: Record<ProviderId, string> };
/** A transaction built at one step and sent at a later one (`position`: a claim's). */
type Held = { kind: 'buy' | 'sell' | 'close-order' | 'claim'; transaction: string; signer: Keypair; position?: string };
type Mode = 'now' | 'later' | 'never';
type Harness = Awaited<ReturnType<typeof harness>>;

/** Operation counts of every seed, for the coverage check at the end. */
const tallies = new Map<number, Map<string, number>>();
/** What the seeds together must have done at least once, so the invariants were not checked over nothing. */
const KINDS = [
  'buy usdc', 'buy jupusd', 'buy yes', 'buy no', 'buy polymarket', 'buy kalshi', 'question on both providers', 'sent via rpc', 'sent via execute', 'fill (ledger)',
  'partial sell filled', 'position close filled', 'owner close', 'keeper expiry', 'resolution', 'claim', 'lost position', 'auto-claim', 'never sent', 'late landed',
];
const PER_SEED = ['fill (ledger)', 'partial sell filled', 'owner close', 'keeper expiry', 'resolution'];

// A property of the prediction product, through the project's client over HTTP with signed transactions: whatever
// happens (buys in USDC and JupUSD on both sides of markets of both providers, the same question bought on both,
// keeper fills, partial sells and whole-position closes, closes by the owner and by the keeper, price moves,
// resolutions, claims by the owner and by the keeper a day later, and transactions sent late or never), after every
// step each order's escrow holds exactly what the order still holds, each vault holds $1 for every contract held,
// no stable is created or lost, each wallet's stables are what its fills, sells and claims say, and what the API
// shows the owner is what the venue keeps.
describe('prediction escrows and vaults under random operations', { timeout: 120_000 }, () => {
  for (const seed of SEEDS) {
    it(`keeps every escrow, vault and wallet exact (seed ${seed})`, async () => {
      const sim = await startTestSim({ seed, startMs: START_MS });
      try {
        tallies.set(seed, await runSequence(await harness(sim, seed)));
      } finally {
        await sim.close();
      }
    });
  }

  afterAll(() => {
    for (const [seed, t] of [...tallies].sort(([a], [b]) => a - b)) console.log(`prediction-escrows seed ${seed}: ${JSON.stringify(Object.fromEntries([...t].sort()))}`);
  });

  it('did something of every kind', () => {
    expect([...tallies.keys()].sort((a, b) => a - b)).toEqual(SEEDS);
    const sum = (kind: string) => [...tallies.values()].reduce((s, t) => s + (t.get(kind) ?? 0), 0);
    for (const kind of KINDS) expect(sum(kind), kind).toBeGreaterThan(0);
    // And every seed filled, sold, closed, expired and resolved something.
    for (const [seed, t] of tallies) for (const kind of PER_SEED) expect(t.get(kind) ?? 0, `${kind} in seed ${seed}`).toBeGreaterThan(0);
  });

  it('keeps a position in one stable: a buy in the other stable is refused while one is built and not landed', async () => {
    const sim = await startTestSim({ seed: 9, startMs: START_MS });
    try {
      const h = await harness(sim, 9);
      await h.refreshPool();
      const [w] = h.wallets;
      const marketId = h.pool()[0]!.markets.polymarket;
      const usdc = (await h.buildBuy(w!, marketId, true, USDC_MINT, 10_000_000n))!;
      // The USDC order's escrow is open before it lands: the position's stable is USDC until it ends.
      const jupusd = await h.buildBuy(w!, marketId, true, JUPUSD_MINT, 10_000_000n, true);
      expect(jupusd).toBeUndefined();
      await h.submit(usdc.transaction, w!, false);
      await h.check();
      await control(sim, '/orders/fill', {});
      await h.check();
      await control(sim, '/orders/expire', {});
      await h.check();
      expect([...sim.ctx.state.prediction.orders.values()].filter((o) => o.phase === 'open')).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});

/** A simulator's wallets, the client, and the invariants checked after every step. */
async function harness(sim: RunningSimulator, seed: number) {
  const jup: JupiterClient = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  const rpc = new SolanaRpc(sim.rpcUrl);
  const { venue, prediction: desk } = sim.ctx.state;
  const rng = new Rng(seed, 'prediction-escrows');
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!;
  const tally = new Map<string, number>();
  const count = (kind: string, n = 1) => tally.set(kind, (tally.get(kind) ?? 0) + n);
  const steps: string[] = [];
  /** The stable each order was built in (its position's may change once the position is empty). */
  const orderMint = new Map<string, string>();
  /** Every buy's escrow, from its build. */
  const orderEscrow = new Map<string, string>();
  let pool: Question[] = [];

  const maker = venue.vault.publicKey;
  const vaults = new Map(MINTS.map((m) => [vaultAddress(new PublicKey(m)).address.toBase58(), m]));
  const escrowList = async () => (await control<{ escrows: Escrow[] }>(sim, '/escrows', undefined, 'GET')).escrows.filter((e) => e.product === 'prediction');
  const total = (mint: string, escrows: Escrow[]) => escrows.filter((e) => e.mint === mint).reduce((s, e) => s + BigInt(e.amount), 0n);
  const baseline = new Map<string, bigint>();
  const before = await escrowList();
  for (const mint of MINTS) baseline.set(mint, total(mint, before) + venue.balance(maker, mint));

  const wallets = Array.from({ length: WALLETS }, (_, i) => Keypair.fromSeed(createHash('sha256').update(`prediction-escrows:${seed}:${i}`).digest()));
  for (const w of wallets) {
    await airdrop(sim, w, SOL, 10_000_000_000n);
    for (const mint of MINTS) await airdrop(sim, w, mint, FUNDS);
  }
  const airdropped = BigInt(WALLETS) * FUNDS;
  const mine = (owner: PublicKey) => wallets.some((w) => w.publicKey.equals(owner));
  const signerOf = (owner: PublicKey) => wallets.find((w) => w.publicKey.equals(owner))!;
  const positions = () => [...desk.positions.values()].filter((p) => mine(p.owner));
  const openOrders = () => [...desk.orders.values()].filter((o) => o.phase === 'open');
  const market = (id: string) => desk.markets.market(id)!;
  const tradable = (q: Question) => PROVIDERS.every((pr) => desk.markets.tradable(market(q.markets[pr])));

  /** Keeps two or three questions listed by both providers (paired by event slug and market title), open for hours yet. */
  async function refreshPool(): Promise<void> {
    pool = pool.filter(tradable);
    if (pool.length >= 2) return;
    const now = venue.clock.now();
    const category = pick(['politics', 'sports', 'culture', 'economics', 'tech', 'esports'] as const);
    const listed = await Promise.all(PROVIDERS.map((provider) => jup.prediction.getEvents({ provider, includeMarkets: true, category })));
    const byKey = new Map<string, Partial<Record<ProviderId, string>>>();
    PROVIDERS.forEach((provider, i) => {
      for (const e of listed[i]!.data) {
        for (const m of e.markets) {
          const quoted = [m.pricing.buyYesPriceUsd, m.pricing.buyNoPriceUsd].every((x) => x !== null && x >= 50_000n && x <= 950_000n);
          if (!m.isTradable || !quoted || m.closeTime * 1000 < now + 6 * 3_600_000) continue;
          const key = `${e.metadata?.slug ?? e.eventId}|${m.title}`;
          byKey.set(key, { ...byKey.get(key), [provider]: m.marketId });
        }
      }
    });
    const pairs = [...byKey].filter(([, ms]) => PROVIDERS.every((pr) => ms[pr] !== undefined)) as Array<[string, Record<ProviderId, string>]>;
    while (pool.length < 3 && pairs.length > 0) {
      const [title, markets] = pairs.splice(Math.floor(rng.next() * pairs.length), 1)[0]!;
      // The two listings are one question: they share its probability (and its result).
      expect(market(markets.polymarket).latent).toBe(market(markets.kalshi).latent);
      if (!pool.some((q) => q.title === title)) pool.push({ title, markets });
    }
    expect(pool.length, `a question listed on both providers at ${now}`).toBeGreaterThan(0);
  }

  /**
   * Builds a buy through the client. With `mayRefuse`, a 400 `settlement_mint_mismatch` (the position settles in
   * the other stable) is an answer too: undefined.
   */
  async function buildBuy(w: Keypair, marketId: string, isYes: boolean, mint: string, deposit: bigint, mayRefuse = false): Promise<SignablePredictionOrderBuild | undefined> {
    try {
      const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: w.publicKey.toBase58(), marketId, isYes, depositAmount: deposit, depositMint: mint });
      orderMint.set(build.order.orderPubkey!, mint);
      orderEscrow.set(build.order.orderPubkey!, build.order.orderAtaPubkey!);
      return build;
    } catch (err) {
      if (mayRefuse && err instanceof BadRequestError && readPredictionErrorBody(err.body)?.code === 'settlement_mint_mismatch') return undefined;
      throw err;
    }
  }

  /** Signs and sends a build through the venue's RPC or POST /execute; it must land unless `mayFail`. */
  async function submit(transaction: string, signer: Keypair, mayFail: boolean): Promise<boolean> {
    const signed = signBase64(transaction, signer);
    const viaRpc = rng.next() < 0.5;
    const error = await (async () => {
      if (!viaRpc) return void (await jup.prediction.executePredictionOrder({ signedTransaction: signed }));
      const { value } = await rpc.status(await rpc.send(Buffer.from(signed, 'base64')));
      return value === null || value.err !== null ? `status ${JSON.stringify(value)}` : undefined;
    })().catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
    if (!mayFail) expect(error, `sending at step ${steps.length + 1} via ${viaRpc ? 'rpc' : 'execute'}`).toBeUndefined();
    if (error === undefined) count(viaRpc ? 'sent via rpc' : 'sent via execute');
    return error === undefined;
  }

  async function check(): Promise<void> {
    const where = `seed ${seed}, after step ${steps.length}: ${steps.slice(-4).join(' | ')}`;
    // Everything due at this instant done (the keeper is idempotent at a fixed time and price).
    await control(sim, '/clock', { advanceMs: 0 });
    const escrows = await escrowList();
    const entries = await ledger(sim);
    const now = venue.clock.now();
    expect(venue.lastKeeperError, where).toBeNull();

    // (1) Each order's escrow holds what the order says it still holds; an ended order has none, on chain either.
    for (const e of escrows) {
      if (vaults.has(e.authority)) {
        expect(e.mint, where).toBe(vaults.get(e.authority));
        continue;
      }
      const o = desk.orders.get(e.authority);
      expect(o?.phase, `escrow ${e.address} of order ${e.authority} ${where}`).toMatch(/^(open|pending)$/);
      expect(e.wallet, where).toBe(o!.owner.toBase58());
      expect(e.mint, `escrow ${e.address} of order ${e.authority} ${where}`).toBe(orderMint.get(e.authority));
      expect(e.mint, `escrow of order ${e.authority} against its position's stable ${where}`).toBe(o!.position.mint.mint);
      // A build not (yet) sent has its escrow, empty, until its blockhash expires.
      expect(BigInt(e.amount), `escrow of order ${e.authority} (${o!.phase}) ${where}`).toBe(o!.phase === 'open' ? o!.remaining : 0n);
    }
    for (const o of desk.orders.values()) {
      const listed = escrows.filter((e) => e.authority === o.address);
      if (o.phase === 'pending') {
        expect(o.pendingUntilMs, `order ${o.address} still pending after its blockhash expired ${where}`).toBeGreaterThanOrEqual(now);
      } else if (o.phase === 'open' && o.isBuy) {
        expect(listed.map((e) => e.address), `open order ${o.address} ${where}`).toEqual([o.escrow!.toBase58()]);
      } else {
        expect(listed, `ended order ${o.address} (${o.phase}) ${where}`).toEqual([]);
        if (o.escrow) expect(venue.chain.tokenAccount(o.escrow), `escrow of ended order ${o.address} ${where}`).toBeUndefined();
      }
      if (o.phase !== 'open' && o.phase !== 'pending') expect(venue.chain.account(o.key)?.lamports ?? 0, `account of ended order ${o.address} ${where}`).toBe(0);
      // Never beyond the limit: a buy's average price at most its limit, a sell's at least its floor.
      if (o.filledContracts > 0n) expect(o.isBuy ? o.costUsd * MICRO <= o.limit * o.filledContracts : o.costUsd * MICRO >= o.limit * o.filledContracts, `price of ${o.address} ${where}`).toBe(true);
    }
    // A build never sent is dropped once its blockhash expires, its accounts with it.
    for (const [order, escrow] of orderEscrow) {
      if (desk.orders.has(order)) continue;
      expect(venue.chain.tokenAccount(new PublicKey(escrow)), `escrow of dropped order ${order} ${where}`).toBeUndefined();
      expect(venue.chain.account(new PublicKey(order))?.lamports ?? 0, `account of dropped order ${order} ${where}`).toBe(0);
    }
    // Each position's open orders and reserved contracts are those of its open orders; its account (a losing one's
    // is closed) says what it holds.
    for (const p of positions()) {
      const orders = openOrders().filter((o) => o.position === p);
      expect(p.openOrders, `open orders of ${p.address} ${where}`).toBe(orders.length);
      expect(p.reserved, `reserved of ${p.address} ${where}`).toBe(orders.filter((o) => !o.isBuy).reduce((s, o) => s + o.contracts - o.filledContracts, 0n));
      if (p.opened && !p.lost) expect(decodePositionAccount(venue.chain.account(p.key)!.data)?.contracts, `position account ${p.address} ${where}`).toBe(p.contracts);
    }

    for (const mint of MINTS) {
      // (2) The vault holds $1 for every contract held and not yet paid out or lost.
      const vault = escrows.find((e) => vaults.get(e.authority) === mint);
      const held = positions().filter((p) => p.mint.mint === mint && p.opened && !p.claimed && !p.lost).reduce((s, p) => s + p.contracts, 0n);
      expect(BigInt(vault?.amount ?? -1), `${mint} vault ${where}`).toBe(held);
      // (3) No stable is created or lost: wallets, escrows, vault and market maker together hold what they held.
      const all = wallets.reduce((s, w) => s + venue.balance(w.publicKey, mint), 0n) + total(mint, escrows) + venue.balance(maker, mint);
      expect(all, `total ${mint} ${where}`).toBe(baseline.get(mint)! + airdropped);
      // Each wallet's stables (with what its open orders hold) are its airdrop, less what its buys cost with fees,
      // plus its sells' net proceeds and its claims.
      for (const w of wallets) {
        const landed = [...desk.orders.values()].filter((o) => o.owner.equals(w.publicKey) && o.phase !== 'pending' && orderMint.get(o.address) === mint);
        const flows = landed.reduce((s, o) => s + (o.isBuy ? -(o.costUsd + o.feeUsd) : o.costUsd - o.feeUsd), 0n);
        const claims = positions().filter((p) => p.owner.equals(w.publicKey) && p.claimed && p.mint.mint === mint).reduce((s, p) => s + p.claimedUsd, 0n);
        const inEscrow = total(mint, escrows.filter((e) => e.wallet === w.publicKey.toBase58() && !vaults.has(e.authority)));
        expect(venue.balance(w.publicKey, mint) + inEscrow, `${mint} of ${w.publicKey.toBase58()} ${where}`).toBe(FUNDS + flows + claims);
        // The settlement ledger accounts for them too: airdrops and refunds, proceeds and claims in, deposits out.
        const recorded = entries.filter((e) => e.wallet === w.publicKey.toBase58()).reduce((s, e) => {
          const out = e.kind === 'prediction-order' && e.inputMint === mint ? BigInt(e.inputAmount!) : 0n;
          const back = e.kind !== 'prediction-order' && e.outputMint === mint ? BigInt(e.outputAmount!) : 0n;
          return s - out + back;
        }, 0n);
        expect(venue.balance(w.publicKey, mint), `ledger of ${mint} of ${w.publicKey.toBase58()} ${where}`).toBe(recorded);
      }
    }

    // (4) What the owner sees through the API is what the venue keeps.
    for (const w of wallets) {
      const rows = [];
      for (let start = 0; ; start += 20) {
        const page = await jup.prediction.getPredictionPositions({ ownerPubkey: w.publicKey.toBase58(), start, end: start + 20 });
        rows.push(...page.data);
        if (!page.pagination.hasNext) break;
      }
      const expected = positions().filter((p) => p.owner.equals(w.publicKey) && p.opened && !p.claimed && !p.lost && (p.contracts > 0n || p.openOrders > 0));
      expect(rows.map((r) => r.pubkey).sort(), `positions of ${w.publicKey.toBase58()} ${where}`).toEqual(expected.map((p) => p.address).sort());
      for (const r of rows) expect(r.contractsMicro, `contracts of ${r.pubkey} ${where}`).toBe(desk.positions.get(r.pubkey)!.contracts);
    }
  }

  return { sim, jup, venue, desk, rng, pick, tally, count, steps, orderMint, wallets, signerOf, positions, openOrders, market, tradable, pool: () => pool, refreshPool, buildBuy, submit, check };
}

async function runSequence(h: Harness): Promise<Map<string, number>> {
  const { sim, jup, desk, rng, pick, count, steps, orderMint, wallets, signerOf, positions, openOrders, market, tradable } = h;
  const held: Held[] = [];
  const ownerClaimed = new Set<string>();
  const partialSells = new Set<string>();
  const closeSells = new Set<string>();
  const bought = new Map<string, Set<ProviderId>>();
  const claimable = (p: SimPosition) => p.opened && !p.claimed && !p.lost && p.contracts > 0n && p.market.status === 'closed' && (p.market.latent.result === 'yes') === p.isYes;
  const modeOf = (r = rng.next()): Mode => (r < 0.8 ? 'now' : r < 0.9 ? 'later' : 'never');

  /** Sends a build now (it must land), holds it for a later step, or drops it. */
  async function dispatch(mode: Mode, x: Held, note: string): Promise<boolean> {
    if (mode === 'later' && held.length < HELD_MAX) {
      held.push(x);
      steps.push(`${note} (held)`);
      return false;
    }
    if (mode !== 'now') {
      count('never sent');
      steps.push(`${note} (never sent)`);
      return false;
    }
    steps.push(note);
    await h.submit(x.transaction, x.signer, false);
    if (x.kind === 'close-order') count('owner close');
    return true;
  }

  /** The stable of a new buy: the position's while it holds contracts or orders, else either. */
  function mintFor(owner: PublicKey, marketId: string, isYes: boolean): string {
    const p = desk.positions.get(positionAddress(owner, marketId, isYes).address.toBase58());
    const building = [...desk.orders.values()].some((o) => o.position === p && (o.phase === 'pending' || o.phase === 'open'));
    if (p && !p.claimed && !p.lost && (p.contracts > 0n || building)) return p.mint.mint;
    return pick(MINTS);
  }

  /** A wallet, a question of the pool, a provider and a side with asks to buy from. */
  function buyTarget() {
    const q = pick(h.pool().filter(tradable));
    if (!q) return undefined;
    const w = pick(wallets);
    const provider = pick(PROVIDERS);
    const marketId = q.markets[provider];
    const isYes = rng.next() < 0.5;
    if (desk.markets.levels(market(marketId), isYes, true).length === 0) return undefined;
    return { q, w, provider, marketId, isYes };
  }

  function tallyBuy(t: NonNullable<ReturnType<typeof buyTarget>>, mint: string): void {
    count(mint === USDC_MINT ? 'buy usdc' : 'buy jupusd');
    count(t.isYes ? 'buy yes' : 'buy no');
    count(`buy ${t.provider}`);
    const providers = bought.get(t.q.title) ?? new Set<ProviderId>();
    bought.set(t.q.title, providers.add(t.provider));
    if (providers.size === 2) count('question on both providers');
  }

  /** A partial sell of a position, or (`all`) its close: DELETE /positions/{pubkey} sells what is not being sold. */
  async function sell(all: boolean, mode: Mode = modeOf()): Promise<boolean> {
    const candidates = positions().filter((p) => p.contracts - p.reserved >= (all ? STEP : 2n * STEP) && desk.markets.tradable(p.market) && desk.markets.levels(p.market, p.isYes, false).length > 0);
    if (candidates.length === 0) return false;
    const p = pick(candidates);
    const [available, ownerPubkey] = [p.contracts - p.reserved, p.owner.toBase58()];
    const contractsMicro = all ? available : STEP * (1n + BigInt(Math.floor(rng.next() * Number(available / STEP - 1n))));
    const build = all
      ? await jup.prediction.closePredictionPosition({ positionPubkey: p.address, ownerPubkey })
      : await jup.prediction.createPredictionOrder({ isBuy: false, ownerPubkey, positionPubkey: p.address, isYes: p.isYes, contractsMicro });
    expect(build.order.contractsMicro).toBe(contractsMicro);
    orderMint.set(build.order.orderPubkey!, p.mint.mint);
    (all ? closeSells : partialSells).add(build.order.orderPubkey!);
    await dispatch(mode, { kind: 'sell', transaction: build.transaction, signer: signerOf(p.owner) }, `${all ? 'close position' : 'sell'} ${contractsMicro} of ${p.contracts} of ${p.address.slice(0, 6)}`);
    return true;
  }

  /** The keeper told to fill or expire one open order (with probability `one`) or all of them. */
  async function keeper(action: 'fill' | 'expire', one: number): Promise<boolean> {
    const open = openOrders();
    if (open.length === 0) return false;
    const order = rng.next() < one ? pick(open).address : undefined;
    const r = await control<{ filled?: number; expired?: number }>(sim, `/orders/${action}`, order ? { order } : {});
    count(action === 'fill' ? 'fill calls' : 'keeper expiry', action === 'fill' ? 1 : r.expired ?? 0);
    steps.push(`${action} ${order ?? 'all'}: ${r.filled ?? r.expired}`);
    return true;
  }

  const deposit = () => 5_000_000n + BigInt(Math.floor(rng.next() * 35_000_000));
  const label = (mint: string) => (mint === USDC_MINT ? 'USDC' : 'JupUSD');

  const ops: Array<[string, number, () => Promise<boolean>]> = [
    ['buy', 22, async () => {
      const t = buyTarget();
      if (!t) return false;
      const mint = mintFor(t.w.publicKey, t.marketId, t.isYes);
      const amount = deposit();
      const build = (await h.buildBuy(t.w, t.marketId, t.isYes, mint, amount))!;
      if (await dispatch(modeOf(), { kind: 'buy', transaction: build.transaction, signer: t.w }, `buy ${amount} ${label(mint)} ${t.isYes ? 'YES' : 'NO'} ${t.marketId} by ${t.w.publicKey.toBase58().slice(0, 6)}`)) tallyBuy(t, mint);
      return true;
    }],
    // A client building a second buy of the same position before sending the first (a retry, another tab).
    ['buy twice', 4, async () => {
      const t = buyTarget();
      if (!t) return false;
      const first = mintFor(t.w.publicKey, t.marketId, t.isYes);
      const builds = [(await h.buildBuy(t.w, t.marketId, t.isYes, first, deposit()))!];
      // Either stable: one other than the first build's is refused (the position's is fixed while that one is built).
      const second = pick(MINTS);
      const other = await h.buildBuy(t.w, t.marketId, t.isYes, second, deposit(), second !== first);
      if (second !== first) expect(other).toBeUndefined();
      if (other) builds.push(other);
      if (rng.next() < 0.5) builds.reverse();
      steps.push(`buy twice ${label(first)} then ${label(second)} ${t.isYes ? 'YES' : 'NO'} ${t.marketId}`);
      for (const b of builds) if (await h.submit(b.transaction, t.w, second !== first)) tallyBuy(t, orderMint.get(b.order.orderPubkey!)!);
      return true;
    }],
    ['fill', 12, () => keeper('fill', 0.5)],
    ['sell', 10, () => sell(false)],
    ['close position', 6, () => sell(true)],
    ['close order', 7, async () => {
      const open = openOrders();
      if (open.length === 0) return false;
      const o = pick(open);
      const build = await jup.prediction.closePredictionOrder({ ownerPubkey: o.owner.toBase58(), orderPubkey: o.address });
      await dispatch(modeOf(), { kind: 'close-order', transaction: build.transaction, signer: signerOf(o.owner) }, `close order ${o.address.slice(0, 6)} holding ${o.remaining}`);
      return true;
    }],
    ['expire', 6, () => keeper('expire', 0.6)],
    ['clock', 12, async () => {
      const advanceMs = rng.next() < 0.75 ? 500 + Math.floor(rng.next() * 7_500) : 20_000 + Math.floor(rng.next() * 50_000);
      await control(sim, '/clock', { advanceMs });
      count('clock');
      steps.push(`clock +${advanceMs}`);
      return true;
    }],
    ['resolve', 6, async () => {
      const sides = (q: Question) => new Set(positions().filter((p) => p.opened && p.contracts > 0n && PROVIDERS.some((pr) => p.market.marketId === q.markets[pr])).map((p) => p.isYes));
      const candidates = h.pool().filter((q) => tradable(q) && sides(q).size > 0);
      if (candidates.length === 0) return false;
      // A question held on both sides first: its resolution pays one and closes the other.
      const both = candidates.filter((q) => sides(q).size === 2);
      const q = pick(both.length > 0 ? both : candidates);
      const result = rng.next() < 0.5 ? 'yes' : 'no';
      const r = await control<{ resolved: string[] }>(sim, '/prediction/resolve', { marketId: q.markets[pick(PROVIDERS)], result });
      expect([...r.resolved].sort()).toEqual(Object.values(q.markets).sort());
      count('resolution');
      steps.push(`resolve ${q.title} ${result}`);
      for (const p of positions().filter((x) => r.resolved.includes(x.market.marketId) && x.opened && x.contracts > 0n && !x.claimed)) {
        // A losing side is closed at once (its dollars back to the market maker); a winning side waits for a claim.
        expect(p.lost, `${p.address} after ${q.title} resolved ${result}`).toBe((result === 'yes') !== p.isYes);
      }
      return true;
    }],
    ['claim', 8, async () => {
      const candidates = positions().filter(claimable);
      if (candidates.length === 0) return false;
      const p = pick(candidates);
      const build = await jup.prediction.claimPredictionPosition({ positionPubkey: p.address, ownerPubkey: p.owner.toBase58() });
      expect(build.position.payoutAmountUsd).toBe(p.contracts);
      if (await dispatch(modeOf(), { kind: 'claim', transaction: build.transaction, signer: signerOf(p.owner), position: p.address }, `claim ${p.contracts} of ${p.address.slice(0, 6)}`)) ownerClaimed.add(p.address);
      return true;
    }],
    ['auto-claim', 4, async () => {
      const due = positions().filter(claimable);
      if (due.length === 0) return false;
      const advanceMs = AUTO_CLAIM_MS + 60_000 + Math.floor(rng.next() * 600_000);
      await control(sim, '/clock', { advanceMs });
      steps.push(`clock +${advanceMs} (auto-claim ${due.length})`);
      for (const p of due) expect(p.claimed, `${p.address} a day after its market resolved`).toBe(true);
      count('auto-claim', due.length);
      return true;
    }],
    ['send held', 5, async () => {
      if (held.length === 0) return false;
      const [x] = held.splice(Math.floor(rng.next() * held.length), 1);
      // A late transaction may be refused (its market closed, its order ended, its blockhash expired); the
      // invariants hold either way.
      const ok = await h.submit(x!.transaction, x!.signer, true);
      count(ok ? 'late landed' : 'late refused');
      if (ok && x!.kind === 'close-order') count('owner close');
      if (ok && x!.position) ownerClaimed.add(x!.position);
      steps.push(`send held ${x!.kind}: ${ok ? 'landed' : 'refused'}`);
      return true;
    }],
  ];
  const weight = ops.reduce((s, [, w]) => s + w, 0);

  await h.check();
  for (let step = 0; step < STEPS; ) {
    await h.refreshPool();
    let r = rng.next() * weight;
    const op = ops.find(([, w]) => (r -= w) < 0) ?? ops[0]!;
    if (!(await op[2]())) continue;
    step += 1;
    await h.check();
  }

  // A partial sell that fills, if the random steps made none: sent now and filled, checked like every step.
  const filled = (ids: Set<string>) => [...ids].filter((id) => (desk.orders.get(id)?.filledContracts ?? 0n) > 0n).length;
  if (filled(partialSells) === 0 && (await sell(false, 'now'))) {
    await h.check();
    await control(sim, '/orders/fill', {});
    await h.check();
  }

  // What happened, from the venue's own records.
  const ledger = h.venue.chain.ledger.filter((e) => wallets.some((w) => w.publicKey.toBase58() === e.wallet));
  count('fill (ledger)', ledger.filter((e) => e.kind === 'prediction-fill').length);
  count('partial sell filled', filled(partialSells));
  count('position close filled', filled(closeSells));
  count('lost position', positions().filter((p) => p.lost).length);
  const claimed = positions().filter((p) => p.claimed);
  count('claim', claimed.filter((p) => ownerClaimed.has(p.address)).length);
  count('claimed by the keeper', claimed.filter((p) => !ownerClaimed.has(p.address)).length);
  return h.tally;
}
