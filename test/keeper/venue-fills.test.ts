// Acceptance (issue 23, item 2), at the keeper: every fill of a resting order that the venue's ledger shows (a limit
// order's partial fills, a recurring order's cycle, a prediction order's fill) is announced by the venue
// reconciliation exactly once, as a 'filled' record whose amounts are the ledger's, and reads as one short console
// line with its amounts, price and fee. The venue is the simulator over HTTP, the ledger Redis, the intents go
// through the keeper's real executor; the simulator's clock stands still unless a test moves it.
import { describe, expect, it } from 'vitest';
import { reconcileVenue } from '../../src/keeper/index.js';
import { FILL_INTERVAL_MS } from '../../src/sim/products/triggerKeeper.js';
import { formatRecord, type LogRecord } from '../../src/lib/consoleFormat.js';
import { fillLeg, formatLeg, formatUsd } from '../../src/lib/fills.js';
import { createLogger } from '../../src/lib/logger.js';
import { marketOf, useExecutorWorld } from '../helpers/executorKit.js';
import { fillNow, freshMarkets, keeperKit } from '../helpers/keeperKit.js';
import { control, ledger, SOL, USDC, type LedgerTx } from '../helpers/sim.js';

const FILL_KINDS = ['trigger-fill', 'recurring-fill', 'prediction-fill'];

describe('the fills of resting orders', { timeout: 180_000 }, () => {
  const world = useExecutorWorld('keeper-venue-fills');

  it('says each fill the venue made once, with the amounts of the venue\'s ledger, on one short console line', async () => {
    const kit = await keeperKit(world, { usdc: 2_000_000_000n, market: await marketOf(world, [SOL, USDC]) });
    const records: LogRecord[] = [];
    const deps = { ...kit.deps, logger: createLogger({ destination: { write: (s: string) => void records.push(JSON.parse(s) as LogRecord) }, format: 'json' }) };
    const [m] = await freshMarkets(world, 1, new Set());
    // A limit buy of $1,500 at 250 USD/SOL: the market crosses it at once, and the venue fills at most $1,000 a trade.
    const limit = await kit.run({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 1_500_000_000n, takingAmount: 6_000_000_000n });
    const dca = await kit.run({ kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 150_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 });
    for (const r of [limit, dca]) expect(r.state).toBe('landed');

    // The venue's keepers act as its clock moves: the limit order fills in two trades (the first a partial fill),
    // the recurring order buys its first cycle.
    // The venue's keepers run on their own ticks and fill an order at most once per FILL_INTERVAL_MS of its clock:
    // move the clock, wait for the first trade and the cycle in the ledger, move it past the interval, wait for the
    // second trade (the first may already have come on a tick before the clock moved).
    const fillsOf = (l: readonly LedgerTx[]) => l.filter((t) => t.wallet === kit.address && FILL_KINDS.includes(t.kind));
    const kinds = async () => fillsOf(await ledger(world.sim)).map((t) => t.kind).sort();
    await control(world.sim, '/clock', { advanceMs: 60_000 });
    await expect.poll(kinds, { timeout: 30_000 }).toEqual(expect.arrayContaining(['recurring-fill', 'trigger-fill']));
    await control(world.sim, '/clock', { advanceMs: FILL_INTERVAL_MS + 1_000 });
    await expect.poll(kinds, { timeout: 30_000 }).toEqual(['recurring-fill', 'trigger-fill', 'trigger-fill']);
    expect((await reconcileVenue(deps)).counts).toMatchObject({ tracked: 2, fills: 3, ended: 1 });

    // A prediction order and its fill.
    const buy = await kit.run({ kind: 'prediction.buy', marketId: m!.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 990_000n });
    expect(buy.state).toBe('landed');
    await fillNow(world, buy.quote!.order as string);
    expect((await reconcileVenue(deps)).counts).toMatchObject({ tracked: 2, fills: 1, ended: 1 });
    // Nothing is said twice.
    expect((await reconcileVenue(deps)).counts).toMatchObject({ tracked: 1, fills: 0 });

    const fills = fillsOf(await ledger(world.sim));
    expect(fills.map((t) => t.kind).sort()).toEqual(['prediction-fill', 'recurring-fill', 'trigger-fill', 'trigger-fill']);
    const said = records.filter((r) => r.msg === 'filled');
    expect(said).toHaveLength(fills.length);
    for (const t of fills) {
      const mine = said.filter((r) => r.signature === t.signature);
      expect(mine, `${t.kind} ${t.signature}`).toHaveLength(1);
      const r = mine[0]!;
      const line = formatRecord(r)!;
      // One line a person reads at a glance: the signature shortened, no address, no intent id in full.
      expect(line.split('\n')).toHaveLength(2);
      expect(line.length).toBeLessThan(140);
      expect(line).not.toMatch(/[1-9A-HJ-NP-Za-km-z]{32,}/);
      expect(line).toContain(`sig ${t.signature.slice(0, 4)}…${t.signature.slice(-4)}`);
      if (t.kind === 'prediction-fill') {
        // A buy: the dollars that left its escrow (fill and fee) for the contracts, at the fill's price, and the fee.
        expect(r).toMatchObject({ instance: buy.instance, intent: buy.id, kind: 'prediction.fill', side: 'buy', marketId: m!.marketId, outcome: 'yes', usdMicro: t.inputAmount, contractsMicro: expect.stringMatching(/^[1-9]\d*$/), priceUsd: expect.any(Number), feeMicroUsd: expect.any(String) });
        expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d filled {2}${buy.instance} {2}prediction buy ${escape(formatUsd(Number(t.inputAmount) / 1e6))} → [\\d.]+ YES ${m!.marketId} @ [\\d.]+ USD/contract {2}fee \\$[\\d.]+ {2}sig `));
        continue;
      }
      const owner = t.kind === 'trigger-fill' ? limit : dca;
      const paid = fillLeg(t.inputMint!, BigInt(t.inputAmount!), undefined);
      const got = fillLeg(t.outputMint!, BigInt(t.outputAmount!), undefined);
      expect(r).toMatchObject({ instance: owner.instance, intent: owner.id, kind: t.kind.replace('-', '.'), in: { mint: t.inputMint, amount: t.inputAmount }, out: { mint: t.outputMint, amount: t.outputAmount }, priceUnit: 'USD/SOL', fee: { mint: SOL, symbol: 'SOL' } });
      const product = t.kind === 'trigger-fill' ? 'trigger' : 'recurring';
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d filled {2}${owner.instance} {2}${product} ${escape(formatLeg(paid))} → ${escape(formatLeg(got))} @ [\\d,.]+ USD/SOL {2}fee [\\d.e-]+ SOL {2}sig \\w{4}…\\w{4}\\n$`));
    }
    // The ends of the orders follow their fills, shortened too.
    const ended = records.filter((r) => typeof r.msg === 'string' && r.msg.startsWith('venue order ended: filled')).map((r) => formatRecord(r)!);
    expect(ended).toHaveLength(2);
    for (const line of ended) expect(line).not.toMatch(/[1-9A-HJ-NP-Za-km-z]{32,}/);
    await kit.close();
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
