import type { SimToken } from '../catalog.js';
import type { Venue } from '../venue.js';
import type { CategoryInput, TokenCategory } from '../http/requests/tokens.js';
import type { Reply } from './common.js';
import { firstPoolMs, mintInformation, ultraMintInformation } from './tokenData.js';
import { swapStats, volumeOf, type StatInterval } from './tokenStats.js';

/** At most this many comma-separated mints per search (Tokens V2 and Ultra). */
export const SEARCH_MINTS_MAX = 100;
/** Results of a symbol or name search. */
export const SEARCH_TEXT_RESULTS = 20;
/** Tokens `/recent` returns. */
export const RECENT_RESULTS = 30;
type Ranking = TokenCategory;

/** Generic top tokens the rankings leave out, as the service does with SOL, USDC and similar. */
function isGeneric(token: SimToken): boolean {
  return token.category === 'sol' || token.category === 'stable';
}

/** Relevance of a token to a text query (lower is better), or undefined when it does not match. */
function relevance(token: SimToken, q: string): number | undefined {
  const symbol = token.symbol.toLowerCase();
  const name = token.name.toLowerCase();
  if (token.mint.toLowerCase() === q) return 0;
  if (symbol === q) return 1;
  if (symbol.startsWith(q)) return 2;
  if (name === q || name.startsWith(q)) return 3;
  if (symbol.includes(q) || name.includes(q)) return 4;
  return undefined;
}

/**
 * The tokens a search query matches. Comma-separated queries are mints only (up to 100; unknown ones are left
 * out, in request order); text matches symbol, name or mint case-insensitively, best matches and verified, liquid
 * tokens first, at most 20.
 */
export function searchMatches(venue: Venue, query: string): { ok: true; tokens: SimToken[] } | { ok: false; error: string } {
  if (query.includes(',')) {
    const parts = [...new Set(query.split(',').map((p) => p.trim()).filter((p) => p !== ''))];
    if (parts.length > SEARCH_MINTS_MAX) return { ok: false, error: `Too many mints in query: at most ${SEARCH_MINTS_MAX}, got ${parts.length}` };
    return { ok: true, tokens: parts.map((p) => venue.token(p)).filter((t): t is SimToken => t !== undefined) };
  }
  const q = query.toLowerCase();
  const scored = venue.tokens.flatMap((token) => {
    const score = relevance(token, q);
    return score === undefined ? [] : [{ token, score }];
  });
  scored.sort(
    (a, b) =>
      a.score - b.score ||
      Number(b.token.verified) - Number(a.token.verified) ||
      b.token.liquidityUsd - a.token.liquidityUsd ||
      a.token.mint.localeCompare(b.token.mint),
  );
  return { ok: true, tokens: scored.slice(0, SEARCH_TEXT_RESULTS).map((s) => s.token) };
}

/** GET /tokens/v2/search or /ultra/v1/search (the Ultra variant adds issuer, fees, stats7d, stats30d). */
export function search(venue: Venue, query: string, variant: 'tokens' | 'ultra'): Reply {
  const found = searchMatches(venue, query);
  if (!found.ok) return { status: 400, body: { error: found.error } };
  const build = variant === 'ultra' ? ultraMintInformation : mintInformation;
  return { status: 200, body: found.tokens.map((t) => build(venue, t)) };
}

/** GET /tokens/v2/tag: every listed token with the tag, in catalog order (the route takes only the documented tags). */
export function byTag(venue: Venue, tag: string): Reply {
  const wanted = tag.toLowerCase();
  return { status: 200, body: venue.tokens.filter((t) => t.tags.includes(wanted)).map((t) => mintInformation(venue, t)) };
}

/** The ranking key of a token in a category over an interval (higher ranks first). */
function rankingKey(venue: Venue, token: SimToken, category: Ranking, interval: StatInterval): number {
  const stats = swapStats(venue, token, interval);
  const volume = volumeOf(stats);
  if (category === 'toptraded') return volume;
  if (category === 'toporganicscore') return token.organicScore * 1e15 + volume;
  // Trending: activity, boosted by the interval's price move and volume growth.
  const clamp = (x: number): number => Math.max(-90, Math.min(500, x));
  return Math.log10(1 + volume) * stats.numTraders * (1 + clamp(stats.priceChange ?? 0) / 100) * (1 + clamp(stats.volumeChange) / 100);
}

/** The ranked tokens of a category and interval (generic tokens left out), best first. */
export function ranked(venue: Venue, category: Ranking, interval: StatInterval): SimToken[] {
  return venue.tokens
    .filter((t) => !isGeneric(t))
    .map((token) => ({ token, key: rankingKey(venue, token, category, interval) }))
    .sort((a, b) => b.key - a.key || a.token.mint.localeCompare(b.token.mint))
    .map((r) => r.token);
}

/** GET /tokens/v2/{category}/{interval}?limit=. */
export function byCategory(venue: Venue, input: CategoryInput): Reply {
  return { status: 200, body: ranked(venue, input.category, input.interval).slice(0, input.limit).map((t) => mintInformation(venue, t)) };
}

/** GET /tokens/v2/recent: the tokens whose first pool opened most recently, newest first. */
export function recent(venue: Venue): Reply {
  const tokens = [...venue.tokens].sort((a, b) => firstPoolMs(venue, b) - firstPoolMs(venue, a) || a.mint.localeCompare(b.mint));
  return { status: 200, body: tokens.slice(0, RECENT_RESULTS).map((t) => mintInformation(venue, t)) };
}
