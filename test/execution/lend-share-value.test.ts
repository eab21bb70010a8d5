// The wallet's value with a Lend Earn deposit in it (issue 23, item 6): the keeper deposits USDC through its executor
// (a real signed transaction the guard let through), interest accrues on the simulator's chain, and the wallet feed
// names the jlUSDC it holds and values it at the exchange price the market's `lending` account holds on chain. The
// test computes that value itself, from the lending account as the SDK's own Anchor coder reads it, and holds
// `status --json` (the CLI, as a person runs it), the console's status, the dashboard and the loss watches' reading
// to it; a venue whose lend API lies about what the shares are worth changes nothing, and one that pairs a share
// with another asset gets it left out as a token without a price, not valued at its word.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PublicKey } from '@solana/web3.js';
import { chromium } from 'playwright-core';
import { lendingPda } from '@jup-ag/lend';
import { getLendingProgram } from '@jup-ag/lend/earn';
import { afterAll, describe, expect, it } from 'vitest';
import { KeeperMetrics } from '../../src/dashboard/metrics.js';
import { startDashboard } from '../../src/dashboard/server.js';
import type { RiskLimits } from '../../src/engine/risk.js';
import { Feeds } from '../../src/execution/feeds.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import { feedJobs } from '../../src/scheduler/feedJobs.js';
import { KeeperQueues } from '../../src/scheduler/queues.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { RiskStore, snapshotSource } from '../../src/store/engineStore.js';
import { HeartbeatStore } from '../../src/store/heartbeats.js';
import { createRedis } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../dashboard/helpers.js';
import { executorFor, useExecutorWorld } from '../helpers/executorKit.js';
import { runKeeperCli } from '../helpers/keeper.js';
import { balances, control, simConnection, SOL, USDC } from '../helpers/sim.js';

const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Limits that trip nothing here: the drawdown watch only reads the wallet's value. */
const LIMITS: RiskLimits = {
  maxNotionalUsdPerIntent: 100_000,
  maxDailyNotionalUsd: 1_000_000,
  maxSlippageBps: 300,
  minSolReserveLamports: 10_000_000n,
  refuseShieldSeverities: ['critical'],
  predictionEntryCutoff: 0,
  maxDrawdownPct: 90,
};

/** What `status --json` prints of the wallet (bigints as strings). */
interface StatusJson {
  walletValue: { nowUsd: number | null; unpriced: string[] };
  balances: { tokens: Array<{ mint: string; symbol: string | null; ui: string; worth?: { asset: string; assetSymbol: string | null; assetAmount: string; exchangePrice: string; usd: number | null } }> };
  positions: { lend: Array<{ asset: string; underlyingAssets: string }> };
  risk: { peakValueUsd: number | null };
}

describe('a lend deposit in the wallet value', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('lend-value');
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  });
  let seq = 0;

  /** A fresh wallet that deposited 200 of its 300 USDC into Earn through the executor, 90 days of interest ago. */
  async function depositor(): Promise<string> {
    const s = await executorFor(world, { lamports: 2_000_000_000n, tokens: [[USDC, 300_000_000n]] });
    const { result } = await s.run({ kind: 'lend.deposit', asset: USDC, amount: 200_000_000n });
    expect(s.reports.flatMap((r) => r.violations.map((v) => `${v.rule}: ${v.message}`))).toEqual([]);
    expect(result).toEqual({ state: 'landed' });
    await control(world.sim, '/clock', { advanceMs: 90 * 86_400_000 });
    // A read of the lend API pays the vault what it is owed, which moves the exchange price on chain (update_rate).
    await world.jup.lend.getLendTokens();
    return s.wallet.address;
  }

  /** The keeper's wallet feed job (wallet read, then the loss watches) for `wallet`, its lend API at `venueUrl`. */
  async function feedOnce(wallet: string, venueUrl: string): Promise<string> {
    const prefix = `${world.prefix}-${++seq}`;
    const jup = createJupiterClient({ baseUrl: venueUrl, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const snapshots = new SnapshotStore(world.redis, prefix);
    // The chain is the simulator's, whatever answers the venue's HTTP API.
    const feeds = new Feeds({ jup, rpc: new SolanaRpc(`${world.sim.url}/rpc`), snapshots, logger: silentLogger });
    const feed = feedJobs({
      feeds,
      watched: { mints: new Set([SOL, USDC]), categories: new Set(), markets: new Set() },
      wallet,
      wakeReactive: () => Promise.resolve(),
      losses: { snapshots: snapshotSource(snapshots), limits: LIMITS, counters: new RiskStore(world.redis, prefix), logger: silentLogger },
    });
    await feed('market');
    await feed('wallet');
    return prefix;
  }

  /** `jup-keeper status --json` of the deployment at `prefix`. */
  async function status(prefix: string): Promise<StatusJson> {
    return JSON.parse(await statusText(prefix, '--json')) as StatusJson;
  }

  /** What `jup-keeper status` prints for the deployment at `prefix`. */
  async function statusText(prefix: string, ...flags: string[]): Promise<string> {
    const run = await runKeeperCli(['status', ...flags, '--redis-url', REDIS_URL, '--prefix', prefix]);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  }

  /**
   * The wallet's value by hand: its SOL, its USDC, and its jlUSDC at the exchange price of the USDC market's lending
   * account as the SDK's Anchor coder reads it from the chain, each at the price the keeper's market feed wrote.
   */
  async function valueByHand(wallet: string, prefix: string): Promise<{ usd: number; sharesUsd: number; exchangePrice: bigint; assets: bigint }> {
    const program = getLendingProgram({ connection: simConnection(world.sim) });
    const lending = (await program.account.lending.fetch(lendingPda.getLending(new PublicKey(USDC)))) as { mint: PublicKey; fTokenMint: PublicKey; tokenExchangePrice: { toString(): string } };
    expect(lending.fTokenMint.toBase58()).toBe(JL_USDC);
    const exchangePrice = BigInt(lending.tokenExchangePrice.toString());
    const held = await balances(world.sim, wallet);
    const shares = held.tokens[JL_USDC]!;
    const assets = (shares * exchangePrice) / 1_000_000_000_000n;
    const { prices } = (await new SnapshotStore(world.redis, prefix).read('market'))!;
    const sol = prices[SOL]!.usd;
    const usdc = prices[USDC]!.usd;
    const sharesUsd = (Number(assets) / 1e6) * usdc;
    return { usd: (Number(held.lamports) / 1e9) * sol + (Number(held.tokens[USDC]!) / 1e6) * usdc + sharesUsd, sharesUsd, exchangePrice, assets };
  }

  it('names the jlUSDC held and values it at the chain exchange price, in status --json and in the loss watches', async () => {
    const wallet = await depositor();
    const prefix = await feedOnce(wallet, world.sim.url);
    const hand = await valueByHand(wallet, prefix);
    // Interest accrued: a share is worth more than one base unit, so the shares alone would undervalue the deposit.
    expect(hand.exchangePrice).toBeGreaterThan(1_000_000_000_000n);
    expect(hand.assets).toBeGreaterThan(200_000_000n);

    const doc = await status(prefix);
    expect(doc.walletValue.unpriced).toEqual([]);
    expect(doc.walletValue.nowUsd).toBeCloseTo(hand.usd, 6);
    const jl = doc.balances.tokens.find((t) => t.mint === JL_USDC);
    expect(jl).toMatchObject({ symbol: 'jlUSDC', worth: { asset: USDC, assetSymbol: 'USDC', assetAmount: String(hand.assets), exchangePrice: String(hand.exchangePrice) } });
    expect(jl!.worth!.usd).toBeCloseTo(hand.sharesUsd, 6);
    // The drawdown and daily-loss watches read the same value after the wallet refresh (their peak is it).
    expect(doc.risk.peakValueUsd).toBeCloseTo(hand.usd, 6);
  });

  it('shows the jlUSDC by name with its worth in the console status and on the dashboard', async () => {
    const wallet = await depositor();
    const prefix = await feedOnce(wallet, world.sim.url);
    const hand = await valueByHand(wallet, prefix);
    const usdc = (Number(hand.assets) / 1e6).toString();
    const dollars = `$${hand.sharesUsd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
    const text = await statusText(prefix);
    const literal = (t: string) => t.replace(/[.$]/g, '\\$&');
    expect(text).toMatch(new RegExp(`^\\s+jlUSDC\\s+[\\d.]+\\s+${JL_USDC}\\s+${literal(`${usdc} USDC, ${dollars}`)}\\s*$`, 'm'));
    expect(text).not.toContain('without a price');

    const bull = createRedis(REDIS_URL, { name: 'lend-value-bull', blocking: true });
    const queues = new KeeperQueues(bull, prefix);
    const dashboard = await startDashboard({
      settings: { host: '127.0.0.1', port: 0, portExplicit: true, token: undefined, chartEveryMs: 60_000, heartbeatStaleMs: 30_000 },
      redis: world.redis,
      redisUrl: REDIS_URL,
      prefix,
      queues,
      snapshots: new SnapshotStore(world.redis, prefix),
      heartbeats: new HeartbeatStore(world.redis, prefix),
      metrics: new KeeperMetrics(),
      ownWorkerId: undefined,
      rateLimitPerMinute: () => undefined,
      started: () => true,
      logger: silentLogger,
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(dashboard.url);
      await expect.poll(() => page.locator('#balances').textContent(), { timeout: 20_000 }).toContain(`jlUSDC (${usdc} USDC, ${dollars})`);
      await expect.poll(() => page.getByTestId('wallet-value').textContent()).toBe(`$${hand.usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`);
    } finally {
      await browser.close();
      await dashboard.close();
      await queues.close();
      bull.disconnect();
    }
  });

  it('keeps the chain value when the venue lend API says the shares are worth three times as much', async () => {
    const wallet = await depositor();
    const liar = await lyingLendApi(world.sim.url, { factor: 3n });
    servers.push(liar.server);
    const lied = await feedOnce(wallet, liar.url);
    const honest = await feedOnce(wallet, world.sim.url);
    const hand = await valueByHand(wallet, honest);

    const [toldLies, toldTruth] = await Promise.all([status(lied), status(honest)]);
    // The lie was served: the venue's position (what the keeper shows as the venue's word) says three times as much.
    const position = (d: StatusJson) => BigInt(d.positions.lend.find((p) => p.asset === USDC)!.underlyingAssets);
    expect(position(toldLies)).toBeGreaterThan(2n * position(toldTruth));
    for (const doc of [toldLies, toldTruth]) {
      expect(doc.walletValue.unpriced).toEqual([]);
      expect(doc.walletValue.nowUsd).toBeCloseTo(hand.usd, 6);
      expect(doc.balances.tokens.find((t) => t.mint === JL_USDC)?.worth?.assetAmount).toBe(String(hand.assets));
    }
  });

  it('leaves a share out, named, when the lend API pairs it with another asset than the program seeds derive', async () => {
    const wallet = await depositor();
    // jlUSDC passed off as a share of SOL: worth 150 times as much a unit, were it believed.
    const liar = await lyingLendApi(world.sim.url, { assetOf: { [JL_USDC]: SOL } });
    servers.push(liar.server);
    const doc = await status(await feedOnce(wallet, liar.url));
    expect(doc.walletValue.unpriced).toEqual([JL_USDC]);
    expect(doc.balances.tokens.find((t) => t.mint === JL_USDC)).toMatchObject({ symbol: null });
    expect(doc.balances.tokens.find((t) => t.mint === JL_USDC)?.worth).toBeUndefined();
    // The loss watches do not judge a wallet they cannot value.
    expect(doc.risk.peakValueUsd).toBeNull();
  });
});

/**
 * A venue in front of the simulator that answers everything as the simulator does, except that its lend API
 * multiplies what the jlTokens are worth by `factor` (each market's totals and conversion rate, each position's
 * underlying assets), and with `assetOf` names another asset as a market's (by its jlToken).
 */
async function lyingLendApi(target: string, o: { factor?: bigint; assetOf?: Record<string, string> }): Promise<{ url: string; server: Server }> {
  const factor = o.factor ?? 1n;
  const times = (v: unknown): unknown => (typeof v === 'string' && /^\d+$/.test(v) ? String(BigInt(v) * factor) : typeof v === 'number' ? v * Number(factor) : v);
  const lieAboutToken = (t: Record<string, unknown>) => {
    const asset = o.assetOf?.[String(t.address)];
    return { ...t, totalAssets: times(t.totalAssets), convertToAssets: times(t.convertToAssets), ...(asset ? { assetAddress: asset, asset: { ...(t.asset as object), address: asset } } : {}) };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && k !== 'host' && k !== 'content-length')) as Record<string, string>;
        const answer = await fetch(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, body });
        let text = await answer.text();
        const path = (req.url ?? '').split('?')[0];
        if (answer.ok && path === '/lend/v1/earn/tokens') text = JSON.stringify((JSON.parse(text) as Array<Record<string, unknown>>).map(lieAboutToken));
        if (answer.ok && path === '/lend/v1/earn/positions') {
          const positions = JSON.parse(text) as Array<Record<string, unknown>>;
          text = JSON.stringify(positions.map((p) => ({ ...p, token: lieAboutToken(p.token as Record<string, unknown>), underlyingAssets: times(p.underlyingAssets) })));
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      })().catch((err: unknown) => {
        res.writeHead(502);
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
