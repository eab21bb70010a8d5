import type { FillLeg } from './events.js';
import { describeFill, formatLeg, formatPrice, formatUsd, humanNumber, shortId } from './fills.js';

// The pieces of the human console that say what a fill did, and that keep its other lines short: a person reads a
// line in one glance, so ids, addresses and signatures are shortened there (the JSON lines keep them whole).

/** A parsed JSON log record. */
type Rec = Record<string, unknown>;

/**
 * What a 'filled' record did, as one phrase with its fee: "swap 0.05 SOL → 7.41 USDC @ 148.20 USD/SOL  fee
 * 0.000005 SOL", "trigger 10.00 USDC → 0.05548 SOL @ 180.25 USD/SOL  fee 0.0000555 SOL", "prediction buy $4.98 →
 * 5.26 YES POLY-2004032 @ 0.9412 USD/contract  fee $0.03". A venue's fill (kind `<product>.fill`, logged by the
 * venue reconciliation) is named by its product; a landing by its intent kind.
 */
export function fillPhrase(rec: Rec): string {
  const kind = typeof rec.kind === 'string' ? rec.kind : '';
  if (kind === 'prediction.fill') return predictionPhrase(rec);
  const what = describeFill({ kind: kind.endsWith('.fill') ? kind.slice(0, -'.fill'.length) : kind, in: leg(rec.in), out: leg(rec.out), price: num(rec.price), priceUnit: typeof rec.priceUnit === 'string' ? rec.priceUnit : undefined });
  const venueFee = leg(rec.fee);
  if (venueFee) return `${what}  fee ${formatLeg(venueFee)}`;
  const lamports = typeof rec.feeLamports === 'string' && /^\d+$/.test(rec.feeLamports) ? BigInt(rec.feeLamports) : undefined;
  return lamports !== undefined && lamports > 0n ? `${what}  fee ${humanNumber(Number(lamports) / 1e9)} SOL` : what;
}

/** A prediction fill: side, the dollars and the contracts (the arrow points from what was paid), price and fee. */
function predictionPhrase(rec: Rec): string {
  const micro = (k: string) => (typeof rec[k] === 'string' && /^\d+$/.test(rec[k]) ? Number(rec[k]) / 1e6 : undefined);
  const usd = micro('usdMicro');
  const contracts = micro('contractsMicro');
  const side = rec.side === 'sell' ? 'sell' : 'buy';
  const held = `${contracts === undefined ? '?' : humanNumber(contracts)} ${typeof rec.outcome === 'string' ? rec.outcome.toUpperCase() : ''} ${typeof rec.marketId === 'string' ? rec.marketId : ''}`.trim();
  const money = usd === undefined ? '$?' : formatUsd(usd);
  const parts = [`prediction ${side}`, side === 'buy' ? `${money} → ${held}` : `${held} → ${money}`];
  const price = num(rec.priceUsd);
  if (price !== undefined) parts.push(`@ ${formatPrice(price)} USD/contract`);
  const fee = micro('feeMicroUsd');
  return `${parts.join(' ')}${fee !== undefined ? `  fee ${formatUsd(fee)}` : ''}`;
}

/**
 * A change of a resting order's status as the venue reconciliation logs it ('venue order <status>', 'venue order
 * ended: <status>; ledger updated'), as one short line after the time: "order  ladder  trigger 4gXq…dLRR filled (was
 * open)  intent trigger.create.1e79…06a9"; undefined for any other record.
 */
export function venueOrderPhrase(rec: Rec): string | undefined {
  const msg = typeof rec.msg === 'string' ? rec.msg : '';
  if (rec.job !== 'venue-reconcile' || !msg.startsWith('venue order ') || typeof rec.to !== 'string') return undefined;
  const instance = typeof rec.instance === 'string' ? rec.instance : '';
  const order = typeof rec.order === 'string' ? ` ${shortId(rec.order)}` : '';
  const from = typeof rec.from === 'string' ? ` (was ${rec.from})` : '';
  const intent = typeof rec.intent === 'string' ? `  intent ${shortenIds(rec.intent, instance)}` : '';
  return `order  ${instance}  ${typeof rec.product === 'string' ? rec.product : ''}${order} ${rec.to}${from}${intent}`;
}

/** Base58 runs as long as an address or a signature (32 to 88 characters). */
const BASE58_ID = /(?<![1-9A-HJ-NP-Za-km-z])[1-9A-HJ-NP-Za-km-z]{32,88}(?![1-9A-HJ-NP-Za-km-z])/g;
/** An intent id (src/engine/ids.ts, src/keeper/intents.ts): instance, kind, a 20-hex digest, a generation. */
const INTENT_ID = /^(.+?)\.([a-z]+(?:\.[a-zA-Z]+)?)\.([0-9a-f]{20})(-\d+)?$/;

/**
 * A text for a console line with its ids shortened: every address or signature as `shortId` shows it ("5VER…x9Qa"),
 * an intent id as its kind and digest shortened ("prediction.buy.54cd…4761"), led by its instance unless that is
 * the line's own (`instance`).
 */
export function shortenIds(text: string, instance?: string): string {
  const intent = INTENT_ID.exec(text);
  if (intent) {
    const [, owner = '', kind = '', digest = '', generation = ''] = intent;
    return `${owner === instance ? '' : `${owner}.`}${kind}.${shortId(digest)}${generation}`;
  }
  return text.replace(BASE58_ID, (id) => shortId(id));
}

/** A value of a record with every string in it shortened by `shortenIds` (objects and arrays walked). */
export function shortenValue(v: unknown, instance?: string): unknown {
  if (typeof v === 'string') return shortenIds(v, instance);
  if (Array.isArray(v)) return v.map((x) => shortenValue(x, instance));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shortenValue(x, instance)]));
  return v;
}

function leg(v: unknown): FillLeg | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const l = v as Rec;
  return typeof l.mint === 'string' && typeof l.symbol === 'string' && typeof l.amount === 'string' && typeof l.decimals === 'number' ? { mint: l.mint, symbol: l.symbol, amount: l.amount, decimals: l.decimals } : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
