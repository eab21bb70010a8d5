import type { KeeperIntentRecord, VenueAmount, VenueFill } from '../engine/keeperPorts.js';
import type { FillLeg } from '../lib/events.js';
import { fillLeg, fillPrice } from '../lib/fills.js';

/**
 * The fields of the 'filled' log record of one venue fill: what a person needs to read it (the console turns it
 * into one line: src/lib/consoleFormat.ts) and what a machine needs to match it (ids, signature, base units).
 *
 * A limit or recurring fill has the legs of a swap (`in` paid, `out` received, base units with symbol and decimals),
 * the executed price (`fillPrice`: USD per token against a stable coin) and the venue's `fee` as a leg. A prediction
 * fill has its side, market and outcome, the contracts (micro-contracts), the dollars paid with the fee (a buy) or
 * received net of it (a sell), the average price and the fee, all micro-USD as the venue reports them.
 */
export function fillRecord(r: Pick<KeeperIntentRecord, 'id' | 'instance'>, order: string, f: VenueFill): Record<string, unknown> {
  const head = { instance: r.instance, intent: r.id, kind: `${f.product}.fill`, order, signature: f.signature, ...(f.at !== null ? { filledAt: f.at } : {}) };
  if (f.product === 'prediction') {
    return {
      ...head,
      side: f.side,
      marketId: f.marketId,
      outcome: f.isYes ? 'yes' : 'no',
      contractsMicro: f.contractsMicro.toString(),
      usdMicro: f.usdMicro.toString(),
      ...(f.priceMicroUsd !== null ? { priceUsd: Number(f.priceMicroUsd) / 1e6 } : {}),
      ...(f.feeMicroUsd !== null ? { feeMicroUsd: f.feeMicroUsd.toString() } : {}),
    };
  }
  const paid = leg(f.paid);
  const received = leg(f.received);
  const price = fillPrice(paid, received);
  return { ...head, in: paid, out: received, ...(price ? { price: price.price, priceUnit: price.unit } : {}), ...(f.fee ? { fee: leg(f.fee) } : {}) };
}

function leg(a: VenueAmount): FillLeg {
  return fillLeg(a.mint, a.amount, a.decimals ?? undefined);
}
