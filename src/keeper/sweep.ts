import type { SweepReport } from '../engine/keeperPorts.js';
import { formatUnits } from '../lib/amounts.js';
import type { KeeperDeps, KeeperJobResult } from './deps.js';

/** Orders that ended this long before the previous sweep began are checked again (clocks of workers differ). */
const OVERLAP_MS = 60_000;

/**
 * Reports what is stranded: escrows that still hold funds although the order behind them ended (every token account
 * owned by the order account, read from the chain), and winnings of settled positions nobody claimed. Each sweep
 * reads the escrows of the orders the ledger saw end since the previous sweep (the first one, those of the last
 * `sweepLookbackMs`), and again those it found stranded before, until they are empty: its cost follows the orders
 * that ended, not every order ever made. It moves nothing: the report goes to the log (a warning when something is
 * stranded) and to Redis, where `jup-keeper status` shows it.
 */
export async function sweepEscrows(d: KeeperDeps): Promise<KeeperJobResult> {
  const log = d.logger.child({ job: 'sweep' });
  const now = d.now();
  const previous = await d.state.lastSweep();
  const since = previous ? previous.at - OVERLAP_MS : now - d.settings.sweepLookbackMs;
  const ids = [...new Set([...(await d.state.endedSince(since)), ...(previous?.stranded.map((s) => s.intent) ?? [])])];
  const ended = await d.ledger.read(ids);
  const stranded: SweepReport['stranded'] = [];
  for (const r of ended) {
    const v = r.venueOrder;
    if (!v?.order) continue;
    for (const h of await d.venue.escrowHoldings(v.order)) {
      if (h.amount > 0n) stranded.push({ intent: r.id, product: v.product, order: v.order, account: h.account, mint: h.mint, amount: h.amount });
    }
  }
  const positions = await d.venue.positions();
  const unclaimed = positions.filter((p) => p.claimable && !p.claimed && p.contractsMicro > 0n).map((p) => ({ position: p.position, marketId: p.marketId, payoutMicroUsd: p.payoutMicroUsd }));
  const unclaimedMicroUsd = unclaimed.reduce((s, p) => s + p.payoutMicroUsd, 0n);
  await d.state.writeSweep({ at: now, stranded, unclaimed, unclaimedMicroUsd });
  const usd = formatUnits(unclaimedMicroUsd, 6);
  const fields = { checkedOrders: ended.length, stranded: stranded.map((s) => ({ ...s, amount: s.amount.toString() })), unclaimedPositions: unclaimed.length, unclaimedUsd: usd };
  if (stranded.length > 0) log.warn(fields, `sweep: ${stranded.length} escrow(s) hold funds with no live order behind them; $${usd} of winnings unclaimed`);
  else log.info(fields, `sweep: no escrow holds funds without a live order; $${usd} of winnings unclaimed in ${unclaimed.length} position(s)`);
  return {
    summary: `${stranded.length} stranded escrow(s) among ${ended.length} ended order(s) checked; ${unclaimed.length} unclaimed position(s) worth $${usd}`,
    counts: { checkedOrders: ended.length, stranded: stranded.length, unclaimed: unclaimed.length, unclaimedMicroUsd: Number(unclaimedMicroUsd) },
  };
}
