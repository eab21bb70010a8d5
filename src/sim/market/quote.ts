import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import type { SimToken } from '../catalog.js';
import type { PriceBook } from './prices.js';

/** Accounts a one-hop route needs; a two-hop route needs about twice as many (jupiter maxAccounts semantics). */
export const DIRECT_ROUTE_ACCOUNTS = 14;
export const TWO_HOP_ROUTE_ACCOUNTS = 28;

const DEX_LABELS = ['Meteora DLMM', 'Raydium CLMM', 'Whirlpool', 'SolFi', 'Raydium', 'Orca V2', 'Phoenix', 'Lifinity V2'] as const;

/** One leg of a simulated route. */
export interface RouteLeg {
  ammKey: string;
  label: string;
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  outAmount: bigint;
}

/** A priced route for an amount, before the product adds its own fee and slippage. */
export interface RouteQuote {
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  /** Output of the route itself (before a platform fee). */
  outAmount: bigint;
  legs: RouteLeg[];
  accounts: number;
  inUsd: number;
  outUsd: number;
  /** Fraction of value lost to price impact, >= 0. */
  impact: number;
}

/** Constraints on route choice. */
export interface RouteConstraints {
  maxAccounts?: number | undefined;
  onlyDirectRoutes?: boolean | undefined;
  dexes?: readonly string[] | undefined;
  excludeDexes?: readonly string[] | undefined;
}

/** Why no route was found, in Jupiter's error vocabulary. */
export class NoRouteError extends Error {
  constructor(readonly errorCode: 'COULD_NOT_FIND_ANY_ROUTE' | 'TOKEN_NOT_TRADABLE' | 'MAX_ACCOUNT_GREATER_THAN_MAX', message: string) {
    super(message);
  }
}

interface Hop {
  from: SimToken;
  to: SimToken;
  liquidityUsd: number;
}

/**
 * Routes and prices swaps against the simulated market: each hop is a constant-product pool whose depth is the
 * thinner token's liquidity, so output falls with size; a two-hop route through USDC or SOL competes with the
 * direct pool, and `maxAccounts` / `onlyDirectRoutes` / dex filters remove candidates, as Metis does.
 */
export class Router {
  private readonly byMint: Map<string, SimToken>;
  private readonly hubs: SimToken[];

  constructor(
    tokens: readonly SimToken[],
    private readonly prices: PriceBook,
  ) {
    this.byMint = new Map(tokens.map((t) => [t.mint, t]));
    this.hubs = tokens.filter((t) => t.symbol === 'USDC' || t.symbol === 'SOL');
  }

  token(mint: string): SimToken | undefined {
    return this.byMint.get(mint);
  }

  /** Best ExactIn route for `amountIn` base units of the input. */
  quoteExactIn(inputMint: string, outputMint: string, amountIn: bigint, c: RouteConstraints = {}): RouteQuote {
    const candidates = this.candidates(inputMint, outputMint, c);
    let best: RouteQuote | undefined;
    for (const hops of candidates) {
      const q = this.price(hops, amountIn);
      if (q.outAmount > 0n && (!best || q.outAmount > best.outAmount)) best = q;
    }
    if (!best) throw new NoRouteError('COULD_NOT_FIND_ANY_ROUTE', 'Could not find any route');
    return best;
  }

  /** Cheapest ExactOut route delivering at least `amountOut` base units of the output (before fees). */
  quoteExactOut(inputMint: string, outputMint: string, amountOut: bigint, c: RouteConstraints = {}): RouteQuote {
    const candidates = this.candidates(inputMint, outputMint, c);
    let best: RouteQuote | undefined;
    for (const hops of candidates) {
      const needed = this.inputFor(hops, amountOut);
      if (needed === undefined) continue;
      const q = this.price(hops, needed);
      if (q.outAmount >= amountOut && (!best || q.inAmount < best.inAmount)) best = q;
    }
    if (!best) throw new NoRouteError('COULD_NOT_FIND_ANY_ROUTE', 'Could not find any route');
    return best;
  }

  private candidates(inputMint: string, outputMint: string, c: RouteConstraints): Hop[][] {
    const from = this.byMint.get(inputMint);
    const to = this.byMint.get(outputMint);
    if (!from || !to) throw new NoRouteError('TOKEN_NOT_TRADABLE', `The token ${!from ? inputMint : outputMint} is not tradable`);
    if (from.mint === to.mint) throw new NoRouteError('COULD_NOT_FIND_ANY_ROUTE', 'Circular arbitrage is disabled');
    const maxAccounts = c.maxAccounts ?? 64;
    if (maxAccounts > 64) throw new NoRouteError('MAX_ACCOUNT_GREATER_THAN_MAX', 'maxAccounts must be at most 64');
    const routes: Hop[][] = [[this.hop(from, to, 0.6)]];
    if (!c.onlyDirectRoutes && maxAccounts >= TWO_HOP_ROUTE_ACCOUNTS) {
      for (const hub of this.hubs) {
        if (hub.mint === from.mint || hub.mint === to.mint) continue;
        routes.push([this.hop(from, hub, 1), this.hop(hub, to, 1)]);
      }
    }
    return routes.filter((hops) => {
      const accounts = hops.length === 1 ? DIRECT_ROUTE_ACCOUNTS : TWO_HOP_ROUTE_ACCOUNTS;
      if (accounts > maxAccounts) return false;
      return hops.every((h) => {
        const label = labelOf(h.from.mint, h.to.mint);
        if (c.dexes && c.dexes.length > 0 && !c.dexes.includes(label)) return false;
        return !(c.excludeDexes ?? []).includes(label);
      });
    });
  }

  private hop(from: SimToken, to: SimToken, depthShare: number): Hop {
    return { from, to, liquidityUsd: Math.min(from.liquidityUsd, to.liquidityUsd) * depthShare };
  }

  private price(hops: Hop[], amountIn: bigint): RouteQuote {
    const legs: RouteLeg[] = [];
    let amount = amountIn;
    let inUsd = 0;
    for (const [i, h] of hops.entries()) {
      const pIn = this.usd(h.from);
      const pOut = this.usd(h.to);
      const usdIn = (Number(amount) / 10 ** h.from.decimals) * pIn;
      if (i === 0) inUsd = usdIn;
      const usdOut = (usdIn * h.liquidityUsd) / (h.liquidityUsd + usdIn);
      const out = BigInt(Math.floor((usdOut / pOut) * 10 ** h.to.decimals));
      legs.push({ ammKey: ammKeyOf(h.from.mint, h.to.mint), label: labelOf(h.from.mint, h.to.mint), inputMint: h.from.mint, outputMint: h.to.mint, inAmount: amount, outAmount: out });
      amount = out;
    }
    const last = hops[hops.length - 1]!.to;
    const outUsd = (Number(amount) / 10 ** last.decimals) * this.usd(last);
    return {
      inputMint: hops[0]!.from.mint,
      outputMint: last.mint,
      inAmount: amountIn,
      outAmount: amount,
      legs,
      accounts: hops.length === 1 ? DIRECT_ROUTE_ACCOUNTS : TWO_HOP_ROUTE_ACCOUNTS,
      inUsd,
      outUsd,
      impact: inUsd > 0 ? Math.max(0, 1 - outUsd / inUsd) : 0,
    };
  }

  /** Input needed for `amountOut` through the hops (inverse of the constant-product curve), or undefined. */
  private inputFor(hops: Hop[], amountOut: bigint): bigint | undefined {
    let usdNeeded = (Number(amountOut) / 10 ** hops[hops.length - 1]!.to.decimals) * this.usd(hops[hops.length - 1]!.to);
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const h = hops[i]!;
      if (usdNeeded >= h.liquidityUsd) return undefined;
      usdNeeded = (usdNeeded * h.liquidityUsd) / (h.liquidityUsd - usdNeeded);
    }
    const first = hops[0]!.from;
    // Round up, then nudge until the forward price covers the amount (float rounding).
    let amountIn = BigInt(Math.ceil((usdNeeded / this.usd(first)) * 10 ** first.decimals)) + 1n;
    for (let i = 0; i < 8 && this.price(hops, amountIn).outAmount < amountOut; i += 1) amountIn += amountIn / 10_000n + 1n;
    return amountIn;
  }

  private usd(token: SimToken): number {
    const p = this.prices.usd(token.mint);
    if (p === undefined) throw new NoRouteError('TOKEN_NOT_TRADABLE', `no price for ${token.mint}`);
    return p;
  }
}

/** Jupiter's Ultra fee tier of a pair, in bps (jupiter-api.md §1.2 Fees). */
export function ultraFeeBps(input: SimToken, output: SimToken, nowMs: number, startMs: number): number {
  const isNew = (t: SimToken): boolean => t.category === 'new' && nowMs - (startMs - t.ageMs) < 86_400_000;
  if (isNew(input) || isNew(output)) return 50;
  if (output.category === 'jup') return 0;
  const solFamily = (t: SimToken): boolean => t.category === 'sol' || t.category === 'lst' || t.peg?.symbol === 'SOL';
  if (input.category === 'stable' && output.category === 'stable') return 0;
  if (solFamily(input) && solFamily(output)) return 0;
  const pair = new Set([input.category, output.category]);
  if (pair.has('stable') && (input.category === 'sol' || output.category === 'sol')) return 2;
  if (pair.has('stable') && (solFamily(input) || solFamily(output))) return 5;
  return 10;
}

/** The slippage Ultra picks in its automatic mode: tighter for pegged pairs, wider for volatile tokens, in bps. */
export function autoSlippageBps(input: SimToken, output: SimToken): number {
  const vol = Math.max(input.dailyVol, output.dailyVol);
  if (vol <= 0.001) return 5;
  if (vol <= 0.05) return 30;
  if (vol <= 0.1) return 100;
  return 300;
}

/** A stable pool address for a pair. */
export function ammKeyOf(a: string, b: string): string {
  const [x, y] = a < b ? [a, b] : [b, a];
  return bs58.encode(createHash('sha256').update(`amm:${x}:${y}`).digest());
}

function labelOf(a: string, b: string): string {
  const [x, y] = a < b ? [a, b] : [b, a];
  const h = createHash('sha256').update(`label:${x}:${y}`).digest();
  return DEX_LABELS[h[0]! % DEX_LABELS.length]!;
}
