// Acceptance (issue 23, item 2), end to end: in a paper run on the human console (`--log-format pretty`), every fill
// in the venue's ledger (GET /__sim/ledger) has exactly one console line with its amounts: a limit order's fills, a
// recurring order's cycles and a prediction order's fill, each as "filled  <instance>  <product> <paid> → <got> @
// <price>  fee …  sig head…tail", as a swap reads. The simulator's clock stands still; the test fills the orders and
// moves the clock to the recurring order's next cycle.
import { describe, expect, it, onTestFailed } from 'vitest';
import { fillLeg, formatLeg, formatUsd, shortId } from '../../src/lib/fills.js';
import { stopKeeper, waitUntil } from '../helpers/e2e.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair } from '../helpers/keeper.js';
import { allEvents, fillOrders, venueClient, type VenueMarket } from '../helpers/predictionE2e.js';
import { airdrop, control, ledger, SOL, USDC, type LedgerTx } from '../helpers/sim.js';

const FILL_KINDS = ['trigger-fill', 'recurring-fill', 'prediction-fill'];

describe('the console of a paper run with resting orders', () => {
  const env = useKeeperEnv('console-fills', { sim: { clockSpeed: 0 } });

  it('has one line with its amounts for every fill in the venue\'s ledger', { timeout: 150_000 }, async () => {
    let market: VenueMarket | undefined;
    for (const e of await allEvents(venueClient(env.sim))) {
      market = e.markets.find((x) => x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd >= 200_000n && x.pricing.buyYesPriceUsd <= 700_000n && (x.closeTime ?? 0) * 1000 > Date.now() + 3 * 3_600_000);
      if (market) break;
    }
    expect(market).toBeDefined();
    const { path: walletPath, keypair } = writeKeypair(env.dir, 'fills.json');
    const owner = keypair.publicKey.toBase58();
    await airdrop(env.sim, keypair, SOL, 2_000_000_000n);
    await airdrop(env.sim, keypair, USDC, 300_000_000n);
    const config = writeConfig(
      env.dir,
      `venue:
  kind: simulator
  url: ${env.sim.url}
wallet: {}
redis:
  prefix: e2e-console-fills
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  reconcileEvery: 2s
feeds:
  prices: 1s
  wallet: 1s
  prediction: 5s
keeper:
  reconcileVenueEvery: 1s
logging:
  level: info
strategies:
  - id: ladder
    strategy: limit-ladder
    schedule: { every: 1s }
    params: { base: SOL, quote: USDC, levelsPerSide: 1, spacingPct: 1, buyAmount: "10000000", sellAmount: "100000000", rangePct: 20, maxOrdersPerRun: 2 }
  - id: dca-rec
    strategy: dca
    schedule: { every: 1s }
    params: { mode: recurring, inputMint: USDC, outputMint: SOL, total: "110000000", numberOfOrders: 2, interval: 1m, rounds: 1 }
  - id: edge
    strategy: prediction-edge
    schedule: { every: 1s }
    params:
      fair: { ${market!.marketId}: 0.99 }
      minEdge: 0
      orderUsd: 5
      maxEventUsd: 5
      depositMint: USDC
      cooldownSeconds: 600
`,
      'fills.yaml',
    );
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', env.redis.url, '--log-format', 'pretty']);
    const text = () => k.stderr.join('');
    onTestFailed(() => console.error(text().slice(-5000)));
    const mine = async () => (await ledger(env.sim)).filter((t) => t.wallet === owner);
    const fillsIn = (txs: readonly LedgerTx[]) => txs.filter((t) => FILL_KINDS.includes(t.kind));
    /** The console lines that name a fill's signature as the console shortens it. */
    const linesOf = (t: LedgerTx) => text().split('\n').filter((l) => l.endsWith(`  sig ${shortId(t.signature)}`));
    try {
      // The ladder's two orders, the recurring order and the prediction order are placed; the venue fills them.
      await waitUntil('every order placed', async () => {
        const kinds = (await mine()).map((t) => t.kind);
        return (kinds.filter((x) => x === 'trigger-create').length >= 2 && kinds.includes('recurring-create') && kinds.includes('prediction-order')) || undefined;
      }, 60_000);
      await fillOrders(env.sim);
      // The recurring order's next cycle.
      await control(env.sim, '/clock', { advanceMs: 61_000 });
      const fills = await waitUntil('fills of every product in the ledger, each with its console line', async () => {
        const f = fillsIn(await mine());
        const kinds = new Set(f.map((t) => t.kind));
        return FILL_KINDS.every((x) => kinds.has(x)) && f.filter((t) => t.kind === 'recurring-fill').length === 2 && f.every((t) => linesOf(t).length > 0) ? f : undefined;
      }, 60_000);
      expect(await stopKeeper(k)).toBe(0);

      // Every fill of the ledger, then and at stop, has exactly one line, with its amounts in token units.
      expect(fillsIn(await mine()).length).toBe(fills.length);
      for (const t of fills) {
        const lines = linesOf(t);
        expect(lines, `${t.kind} ${t.signature}`).toHaveLength(1);
        const line = lines[0]!;
        expect(line.length).toBeLessThan(140);
        if (t.kind === 'prediction-fill') {
          expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d filled {2}edge {2}prediction buy ${escape(formatUsd(Number(t.inputAmount) / 1e6))} → [\\d.]+ YES ${market!.marketId} @ [\\d.]+ USD/contract {2}fee \\$[\\d.]+ {2}sig `));
          continue;
        }
        const [who, product] = t.kind === 'trigger-fill' ? ['ladder', 'trigger'] : ['dca-rec', 'recurring'];
        const paid = formatLeg(fillLeg(t.inputMint!, BigInt(t.inputAmount!), undefined));
        const out = fillLeg(t.outputMint!, BigInt(t.outputAmount!), undefined);
        // The venue's fee is taken out of what the order received.
        expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d filled {2}${who} {2}${product} ${escape(paid)} → ${escape(formatLeg(out))} @ [\\d,.]+ USD/SOL {2}fee [\\d,.e-]+ ${out.symbol} {2}sig `));
      }
      // No line of the run carries an address, a signature or an intent id in full (the banner's wallet aside).
      const body = text().split('\n').filter((l) => !l.startsWith(' wallet '));
      expect(body.filter((l) => /[1-9A-HJ-NP-Za-km-z]{32,}|\.[0-9a-f]{20}\b/.test(l))).toEqual([]);
    } finally {
      if (k.proc.exitCode === null && k.proc.signalCode === null) k.kill('SIGKILL');
    }
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
