import type { SimToken } from '../catalog.js';
import { Rng } from '../rng.js';
import type { Venue } from '../venue.js';
import type { Reply } from './common.js';
import type { ContentFeedQuery } from '../http/requests/tokens.js';
import { isoMs, organicScoreLabel } from './tokenData.js';
import { ranked } from './tokenLists.js';
import { priceChangePct } from './tokenStats.js';

const HOUR = 3_600_000;
/** Trending tokens `/content/cooking` covers. */
const COOKING_TOKENS = 10;

/** A content item (content.yaml ContentItem). */
interface ContentItem {
  contentId: string;
  content: string;
  contentType: 'text';
  status: 'approved';
  source: null;
  submittedAt: string;
  submittedBy: { id: string; username: string; role: string };
  updatedAt: string;
  updatedBy: { id: string; username: string; role: string };
  postedAt: string;
}

/** A token or news summary (content.yaml TokenSummary / NewsSummary). */
interface Summary {
  summaryFull: string;
  summaryShort: string;
  updatedAt: string;
  citations: string[];
}

function usd(x: number): string {
  if (x >= 1e9) return `${(x / 1e9).toFixed(1)}B`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(1)}M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)}K`;
  return x >= 1 ? x.toFixed(2) : x.toPrecision(3);
}

/** Lines a curator might post about a token, from its catalog facts (no live numbers: posts are in the past). */
function facts(token: SimToken): string[] {
  const lines = [
    `${token.name} (${token.symbol}) counts about ${token.holderCount.toLocaleString('en-US')} holders on Solana.`,
    `${token.symbol} trades on Jupiter with about $${usd(token.liquidityUsd)} of liquidity across its pools.`,
  ];
  if (token.verified) lines.push(`${token.symbol} is verified on Jupiter${token.tags.includes('strict') ? ' and on the strict list' : ''}.`);
  else lines.push(`${token.symbol} is not verified yet: check the mint address before trading.`);
  if (token.tags.includes('lst')) lines.push(`${token.symbol} is a liquid staking token that accrues staking rewards against SOL.`);
  if (token.category === 'stable') lines.push(`${token.symbol} is a dollar stablecoin.`);
  if (token.category === 'new') lines.push(`${token.symbol} launched recently${token.tags.includes('pump') ? ' on pump.fun' : ''}; its liquidity is still thin.`);
  if (token.freezeAuthority) lines.push(`Heads-up: ${token.symbol}'s freeze authority is still set.`);
  if (token.mintAuthority) lines.push(`${token.symbol}'s mint authority is still set, so supply can grow.`);
  return lines;
}

/** Approved content of a token, newest first: deterministic for the seed, all posted before the simulator's start. */
function contentItems(venue: Venue, token: SimToken): ContentItem[] {
  const rng = new Rng(venue.seed, `content:${token.mint}`);
  const lines = facts(token);
  const n = Math.min(12, 2 + Math.floor(Math.log10(Math.max(1, token.holderCount))));
  const span = Math.min(6 * HOUR, token.ageMs / (n + 1));
  const items: ContentItem[] = [];
  let at = venue.clock.startMs;
  for (let i = 0; i < n; i += 1) {
    at -= span * (0.5 + 0.5 * rng.next());
    const curator = 1 + Math.floor(rng.next() * 9);
    items.push({
      contentId: rng.uuid(),
      content: lines[(i + Math.floor(rng.next() * lines.length)) % lines.length]!,
      contentType: 'text',
      status: 'approved',
      source: null,
      submittedAt: isoMs(at),
      submittedBy: { id: rng.uuid(), username: `curator${curator}`, role: 'curator' },
      updatedAt: isoMs(at + 10 * 60_000),
      updatedBy: { id: rng.uuid(), username: 'jup-moderator', role: 'admin' },
      postedAt: isoMs(at + 10 * 60_000),
    });
  }
  return items;
}

/** The token's summary, from its live price and catalog facts. */
function tokenSummary(venue: Venue, token: SimToken): Summary | null {
  const price = venue.prices.usd(token.mint);
  if (price === undefined) return null;
  const change = priceChangePct(venue, token, 24 * HOUR) ?? 0;
  const move = `${change >= 0 ? '+' : ''}${change.toFixed(2)}% over 24 hours`;
  const risks = [token.mintAuthority ? 'its mint authority is set' : '', token.freezeAuthority ? 'its freeze authority is set' : ''].filter(Boolean);
  return {
    summaryShort: `${token.name} (${token.symbol}) trades at $${usd(price)}, ${move}.`,
    summaryFull:
      `${token.name} (${token.symbol}) trades at $${usd(price)}, ${move}, with about $${usd(token.liquidityUsd)} of liquidity and ` +
      `${token.holderCount.toLocaleString('en-US')} holders. It is ${token.verified ? 'verified' : 'not verified'} on Jupiter and its organic ` +
      `activity is ${organicScoreLabel(token.organicScore)}.${risks.length ? ` Note that ${risks.join(' and ')}.` : ''}`,
    updatedAt: isoMs(venue.clock.now()),
    citations: [],
  };
}

/** A news summary for established tokens; null for the others, as for tokens the service has no news about. */
function newsSummary(venue: Venue, token: SimToken): Summary | null {
  if (!token.verified) return null;
  return {
    summaryShort: `No major ${token.symbol} news in the last 24 hours.`,
    summaryFull: `No major news about ${token.name} (${token.symbol}) in the last 24 hours; activity follows the broader Solana market.`,
    updatedAt: isoMs(venue.clock.now()),
    citations: [],
  };
}

function entry(venue: Venue, token: SimToken) {
  return { mint: token.mint, contents: contentItems(venue, token), tokenSummary: tokenSummary(venue, token), newsSummary: newsSummary(venue, token) };
}

function listed(venue: Venue, mints: readonly string[]): SimToken[] {
  return mints.map((m) => venue.token(m)).filter((t): t is SimToken => t !== undefined);
}

/** GET /tokens/v2/content?mints=: content and summaries of each listed mint (unknown mints are left out). */
export function content(venue: Venue, mints: readonly string[]): Reply {
  return { status: 200, body: { data: listed(venue, mints).map((t) => entry(venue, t)) } };
}

/** GET /tokens/v2/content/cooking: content of the tokens trending now. */
export function cooking(venue: Venue): Reply {
  return { status: 200, body: { data: ranked(venue, 'toptrending', '24h').slice(0, COOKING_TOKENS).map((t) => entry(venue, t)) } };
}

/** GET /tokens/v2/v1/content/summaries?mints=: summaries of each listed mint. */
export function summaries(venue: Venue, mints: readonly string[]): Reply {
  return { status: 200, body: { data: listed(venue, mints).map((t) => ({ mint: t.mint, tokenSummary: tokenSummary(venue, t), newsSummary: newsSummary(venue, t) })) } };
}

/** GET /tokens/v2/content/feed?mint=&page=&limit=: one page of a mint's content (an unknown mint has none). */
export function feed(venue: Venue, q: ContentFeedQuery): Reply {
  const token = venue.token(q.mint);
  const items = token ? contentItems(venue, token) : [];
  const start = (q.page - 1) * q.limit;
  return {
    status: 200,
    body: {
      data: {
        contents: items.slice(start, start + q.limit),
        tokenSummary: token ? tokenSummary(venue, token) : null,
        newsSummary: token ? newsSummary(venue, token) : null,
        pagination: { limit: q.limit, total: items.length, page: q.page, totalPages: Math.ceil(items.length / q.limit) },
      },
    },
  };
}
