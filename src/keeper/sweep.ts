import type { SweepReport } from '../engine/keeperPorts.js';
import { formatUnits } from '../lib/amounts.js';
import type { KeeperDeps, KeeperJobResult } from './deps.js';

/**
 * Reports what is stranded: escrows that still hold funds although the order behind them ended (every token
 * account owned by the order account of a recently ended order the ledger tracked, read from the chain), and
 * winnings of settled positions nobody claimed. It moves nothing: the report goes to the log (a warning when
 * something is stranded) and to Redis, where `jup-keeper status` shows it.
 */
export async function sweepEscrows(d: KeeperDeps): Promise<KeeperJobResult> {
  const log = d.logger.child({ job: 'sweep' });
  const now = d.now();
  const ended = await d.ledger.read(await d.state.endedSince(now - d.settings.sweepLookbackMs));
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
  const fields = { checkedOrders: ended.length, stranded: stranded.map((s) => ({ ...s, amount: s.amount.toString() })), unclaimedPositions: unclaimed.length, unclaimedUsd: formatUnits(unclaimedMicroUsd, 6) };
  if (stranded.length > 0) log.warn(fields, `sweep: ${stranded.length} escrow(s) hold funds with no live order behind them; $${formatUnits(unclaimedMicroUsd, 6)} of winnings unclaimed`);
  else log.info(fields, `sweep: no escrow holds funds without a live order; $${formatUnits(unclaimedMicroUsd, 6)} of winnings unclaimed in ${unclaimed.length} position(s)`);
  return {
    summary: `${stranded.length} stranded escrow(s) among ${ended.length} ended order(s); ${unclaimed.length} unclaimed position(s) worth $${formatUnits(unclaimedMicroUsd, 6)}`,
    counts: { checkedOrders: ended.length, stranded: stranded.length, unclaimed: unclaimed.length, unclaimedMicroUsd: Number(unclaimedMicroUsd) },
  };
}
