// Symbols outside the SDK's table of known mints, resolved through the venue's token list (GET /tokens/v2/search)
// before a config's strategy params are parsed for good: the simulator and the real service answer alike.
import { envSchema, type ConfigSections } from '../config/index.js';
import type { JupiterClient } from '../jupiter/client.js';
import type { TokenInfo } from '../jupiter/tokens/index.js';
import type { LookedUpToken, SymbolLookups } from '../sdk/symbols.js';

/** Longest one symbol's look-up may take, retries included, ms. */
export const SYMBOL_LOOKUP_TIMEOUT_MS = 15_000;
/** Look-ups in flight at once. */
const LOOKUP_CONCURRENCY = 4;

/** How one symbol matched the tokens a search returned: the one token it names, or every candidate (none or several). */
export type SymbolMatch = { ok: true; token: TokenInfo } | { ok: false; candidates: TokenInfo[] };

/** Whether the token list marks a token verified (`isVerified`, or the `verified` tag). */
export function isVerifiedToken(token: TokenInfo): boolean {
  return token.isVerified === true || (token.tags ?? []).includes('verified');
}

/**
 * The token a symbol names among search results, by rules safe for real money: only an exact symbol match counts
 * (case-sensitive first, else case-insensitive), verified tokens before unverified ones, and one candidate must
 * remain. A symbol whose only exact-case matches are unverified while a verified token has it in another case is
 * refused too (the classic copycat). Never guesses: several candidates are returned for the caller to refuse.
 */
export function matchSymbol(symbol: string, tokens: readonly TokenInfo[]): SymbolMatch {
  const folded = symbol.toLowerCase();
  const anyCase = tokens.filter((t) => t.symbol.toLowerCase() === folded);
  const exactCase = anyCase.filter((t) => t.symbol === symbol);
  const pool = exactCase.length > 0 ? exactCase : anyCase;
  const verified = pool.filter(isVerifiedToken);
  const chosen = verified.length > 0 ? verified : pool;
  const verifiedElsewhere = verified.length === 0 ? anyCase.filter(isVerifiedToken) : [];
  if (chosen.length === 1 && verifiedElsewhere.length === 0) return { ok: true, token: chosen[0]! };
  return { ok: false, candidates: [...chosen, ...verifiedElsewhere] };
}

/** One symbol resolved through the venue's token list, as printed and logged at start-up. */
export interface LookedUpSymbol {
  symbol: string;
  mint: string;
  name: string;
  /** From the token data. */
  decimals: number;
  verified: boolean;
}

/** Where symbols are looked up: a client of the venue, and how to name the venue in messages. */
export interface SymbolVenue {
  client: Pick<JupiterClient, 'tokens'>;
  /** The venue's origin, or undefined for the in-process simulator (whose short-lived address means nothing later). */
  url: string | undefined;
}

/** The request a symbol's look-up makes, as messages name it. */
export function searchUrl(venue: Pick<SymbolVenue, 'url'>, symbol: string): string {
  const path = `/tokens/v2/search?query=${encodeURIComponent(symbol)}`;
  return venue.url === undefined ? `GET ${path} of the in-process simulator` : `GET ${venue.url.replace(/\/+$/, '')}${path}`;
}

function describeToken(t: TokenInfo): string {
  return `${t.id} (${t.name}, ${isVerifiedToken(t) ? 'verified' : 'unverified'})`;
}

/** Why a symbol names no token, as the config error says it (it starts as mintParam's own message does). */
function failure(symbol: string, venue: SymbolVenue, match: { candidates: readonly TokenInfo[] } | { error: string }): string {
  const head = `${JSON.stringify(symbol)} is neither a known symbol nor a mint address, and`;
  const asked = searchUrl(venue, symbol);
  if ('error' in match) return `${head} the venue's token list did not answer (${asked}: ${match.error}): write the mint address, or try again`;
  if (match.candidates.length === 0) return `${head} no token in the venue's token list has that symbol (${asked})`;
  return `${head} ${match.candidates.length} tokens in the venue's token list have that symbol (${asked}): ${match.candidates.map(describeToken).join(', ')}; write the mint address of the one you mean`;
}

/**
 * Looks each distinct symbol up once (a few at a time, each within `timeoutMs`) and matches it by matchSymbol.
 * Returns what params parse with, and the resolved symbols to show the user, in the order asked. Never throws: a
 * symbol the venue does not settle, or a look-up that fails, is in `lookups.failed` with its message.
 */
export async function lookUpSymbols(venue: SymbolVenue, symbols: readonly string[], timeoutMs = SYMBOL_LOOKUP_TIMEOUT_MS): Promise<{ lookups: SymbolLookups; resolved: LookedUpSymbol[] }> {
  const distinct = [...new Set(symbols)];
  const outcomes = new Array<LookedUpSymbol | string>(distinct.length);
  const one = async (symbol: string): Promise<LookedUpSymbol | string> => {
    let match: SymbolMatch;
    try {
      match = matchSymbol(symbol, await venue.client.tokens.searchTokens({ query: symbol }, { signal: AbortSignal.timeout(timeoutMs) }));
    } catch (err) {
      return failure(symbol, venue, { error: err instanceof Error ? err.message : String(err) });
    }
    if (!match.ok) return failure(symbol, venue, match);
    const t = match.token;
    return { symbol, mint: t.id, name: t.name, decimals: t.decimals, verified: isVerifiedToken(t) };
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < distinct.length; i = next++) outcomes[i] = await one(distinct[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, distinct.length) }, worker));
  const found = new Map<string, LookedUpToken>();
  const failed = new Map<string, string>();
  const resolved: LookedUpSymbol[] = [];
  distinct.forEach((symbol, i) => {
    const o = outcomes[i]!;
    if (typeof o === 'string') failed.set(symbol, o);
    else {
      found.set(symbol, Object.freeze({ mint: o.mint, decimals: o.decimals }));
      resolved.push(o);
    }
  });
  return { lookups: { found, failed }, resolved };
}

/** One resolved symbol as a line for the terminal or a log message. */
export function formatLookedUp(s: LookedUpSymbol): string {
  return `${s.symbol} is ${s.mint} (${s.name}, ${s.decimals} decimals, ${s.verified ? 'verified' : 'unverified'})`;
}

/** A venue opened for look-ups, closed once they are done. */
export interface OpenSymbolVenue extends SymbolVenue {
  close(): Promise<void>;
}

/**
 * The venue the config names, opened for symbol look-ups: `venueUrl` (run's --venue-url), else the config's venue
 * URL, else for a live venue JUPITER_BASE_URL or the default origin, with the API key as the keeper sends it. A
 * simulator venue without a URL is the in-process simulator, whose token list is fixed: a short-lived instance of it
 * answers. Undefined when the config's venue section does not parse (that problem is reported with the others).
 */
export async function openSymbolVenue(sections: ConfigSections, env: NodeJS.ProcessEnv, venueUrl?: string): Promise<OpenSymbolVenue | undefined> {
  const { venue, api } = sections;
  if (venue === undefined) return undefined;
  const parsedEnv = envSchema.safeParse(env);
  const keys = parsedEnv.success ? parsedEnv.data : undefined;
  // Loaded on demand: most configs name only known symbols and never need the client or the simulator.
  const [{ venueBaseUrl }, { jupiterClientOptions }] = await Promise.all([import('../config/venueUrls.js'), import('../config/clientOptions.js')]);
  const live = venue.kind === 'live';
  let url = venueBaseUrl(venue, keys, venueUrl);
  let close = (): Promise<void> => Promise.resolve();
  let inProcess = false;
  if (url === undefined) {
    const { startSimulator } = await import('../sim/server.js');
    const sim = await startSimulator({ ...venue.simulator, port: 0 });
    url = sim.url;
    close = () => sim.close();
    inProcess = true;
  }
  const { createJupiterClient } = await import('../jupiter/client.js');
  // As the keeper sends it: the key goes to its origin only, never to a simulator unless the config names it.
  const client = createJupiterClient(jupiterClientOptions({ baseUrl: url, live, api, env: keys }));
  return { client, url: inProcess ? undefined : url, close };
}
