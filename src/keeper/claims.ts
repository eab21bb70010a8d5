import { KEEPER_INSTANCE } from '../engine/keeperPorts.js';
import { killSwitchVerdictFor } from '../engine/killSwitch.js';
import { formatUnits } from '../lib/amounts.js';
import type { KeeperDeps, KeeperJobResult } from './deps.js';
import { keeperIntent, MAX_GENERATIONS, recordKeeperIntent, reportLyingVenue } from './intents.js';

/**
 * Claims every claimable prediction position once: for each position the venue lists as settled its way and not
 * claimed, a `prediction.claim` intent whose id derives from the position alone is recorded and handed to the
 * executor (builder, guard, signature, confirmation, like any intent). Two keepers, or this job run again, name
 * the same intent, so a position gets one claim at a time; a claim the venue answers "already claimed" or "no
 * claim required" ends done (see the executor). A claim that ended without effect is followed by a fresh one at the
 * next run (see recordKeeperIntent): one the pre-sign guard refused, however many times, since the venue may answer
 * honestly next time and the chain, which pays a position once, keeps two claims from paying twice; others up to
 * MAX_GENERATIONS times. A venue whose claims of a position keep being refused is reported (reportLyingVenue).
 * Losing and unsettled positions are left alone, and nothing is recorded while the kill switch would refuse a claim.
 */
export async function claimWinnings(d: KeeperDeps): Promise<KeeperJobResult> {
  const log = d.logger.child({ job: 'claims' });
  const [positions, killSwitch] = await Promise.all([d.venue.positions(), d.killSwitch.read()]);
  const winners = positions.filter((p) => p.claimable && !p.claimed && p.contractsMicro > 0n);
  const counts = { positions: positions.length, claimable: winners.length, recorded: 0, inFlight: 0, landed: 0, refused: 0, exhausted: 0, venueLying: 0 };
  for (const p of winners) {
    const made = keeperIntent({ kind: 'prediction.claim', positionPubkey: p.position, reason: `claim $${formatUnits(p.payoutMicroUsd, 6)} of a settled winning position in ${p.marketId}`.slice(0, 200) });
    if (!made.ok) {
      log.warn({ position: p.position, problem: made.reason }, 'the venue listed a claimable position the keeper cannot claim');
      continue;
    }
    const verdict = killSwitchVerdictFor(killSwitch, made.intent, KEEPER_INSTANCE);
    if (verdict) {
      counts.refused += 1;
      log.info({ position: p.position, reason: verdict.message }, 'not claiming while the kill switch refuses claims');
      continue;
    }
    const r = await recordKeeperIntent(d, p.position, made.intent);
    if (reportLyingVenue(log, 'prediction.claim', { label: `position ${p.position} (market ${p.marketId})`, fields: { position: p.position, marketId: p.marketId } }, r)) counts.venueLying += 1;
    if (r.id === null) {
      counts.exhausted += 1;
      log.warn({ position: p.position, marketId: p.marketId }, `${MAX_GENERATIONS} claims of this position ended without effect (guard refusals aside); not trying again`);
      continue;
    }
    await d.state.noteClaim(r.id, d.now());
    if (r.created) {
      counts.recorded += 1;
      log.info({ intent: r.id, position: p.position, marketId: p.marketId, side: p.isYes ? 'yes' : 'no', payoutMicroUsd: p.payoutMicroUsd.toString() }, 'claiming a settled winning position');
    } else if (r.state === 'landed') counts.landed += 1;
    else counts.inFlight += 1;
  }
  // The venue's lies first: status clips the line, and they are what the operator must see.
  const lying = counts.venueLying > 0 ? `the venue keeps lying about ${counts.venueLying} claim(s) (guard refusals in a row); ` : '';
  const summary = winners.length === 0 ? `no claimable position among ${positions.length}` : `${lying}${winners.length} claimable: ${counts.recorded} claim(s) recorded, ${counts.inFlight} in flight, ${counts.landed} landed${counts.refused > 0 ? `, ${counts.refused} held by the kill switch` : ''}${counts.exhausted > 0 ? `, ${counts.exhausted} given up` : ''}`;
  return { summary, counts };
}
