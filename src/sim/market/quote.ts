import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import type { SimToken } from '../catalog.js';
import type { PriceBook } from './prices.js';
import { BoundedCache } from '../boundedCache.js';

export { autoSlippageBps, feeSide, ultraFeeBps } from './fees.js';

/** Accounts one leg of a route needs (jupiter maxAccounts semantics): a two-hop route needs twice as many. */
export const ROUTE_ACCOUNTS_PER_LEG = 14;
/** Accounts a one-hop route needs. */
export const DIRECT_ROUTE_ACCOUNTS = ROUTE_ACCOUNTS_PER_LEG;
/** Accounts a two-hop route needs. */
export const TWO_HOP_ROUTE_ACCOUNTS = 2 * ROUTE_ACCOUNTS_PER_LEG;
/** Most accounts a route may use (Metis' maxAccounts ceiling). */
export const MAX_ROUTE_ACCOUNTS = 64;
/**
 * Share of a pair's depth in each of its pools, deepest first: the first pool is the one a small trade uses; a
 * large trade may split across several (the secondary pools hold the rest of the pair's liquidity).
 */
const POOL_DEPTH_SHARES = [0.6, 0.2, 0.12, 0.08] as const;
/** A split route is taken only when it pays at least this much more (bps) than the best single path: more legs cost compute. */
const SPLIT_MIN_GAIN_BPS = 10n;

const DEX_LABELS = ['Meteora DLMM', 'Raydium CLMM', 'Whirlpool', 'SolFi', 'Raydium', 'Orca V2', 'Phoenix', 'Lifinity V2'] as const;

/** One leg of a simulated route. */
export interface RouteLeg {
  ammKey: string;
  label: string;
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  outAmount: bigint;
  /** Share of the route's input that goes through this leg's path, in percent and in bps (routePlan). */
  percent: number;
  bps: number;
}

/** A priced route for an amount, before the product adds its own fee and slippage. */
export interface RouteQuote {
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  /** Output of the route itself (before a platform fee). */
  outAmount: bigint;
  legs: RouteLeg[];
  /** Accounts the route uses (what maxAccounts caps): ROUTE_ACCOUNTS_PER_LEG per leg. */
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
  ammKey: string;
  label: string;
}

/** A way through the market: one or more paths taken in parallel, each with its share of the input (shares sum to 1). */
type Candidate = Array<{ hops: Hop[]; share: number }>;

/**
 * Routes and prices swaps against the simulated market: each hop is a constant-product pool whose depth is a share
 * of the thinner token's liquidity, so output falls with size. A pair has several pools of different depth; a
 * two-hop route through USDC or SOL competes with the direct pools, and a large trade may be split across the
 * pair's pools. `maxAccounts` / `onlyDirectRoutes` / dex filters remove candidates, as Metis does.
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
    let single: RouteQuote | undefined;
    let split: RouteQuote | undefined;
    for (const candidate of this.candidates(inputMint, outputMint, c, true)) {
      const q = this.price(candidate, amountIn);
      if (q.outAmount <= 0n) continue;
      if (candidate.length === 1) {
        if (!single || q.outAmount > single.outAmount) single = q;
      } else if (!split || q.outAmount > split.outAmount) {
        split = q;
      }
    }
    const best = split && (!single || split.outAmount * 10_000n >= single.outAmount * (10_000n + SPLIT_MIN_GAIN_BPS)) ? split : single;
    if (!best) throw new NoRouteError('COULD_NOT_FIND_ANY_ROUTE', 'Could not find any route');
    return best;
  }

  /** Cheapest ExactOut route delivering at least `amountOut` base units of the output (before fees); never split. */
  quoteExactOut(inputMint: string, outputMint: string, amountOut: bigint, c: RouteConstraints = {}): RouteQuote {
    let best: RouteQuote | undefined;
    for (const candidate of this.candidates(inputMint, outputMint, c, false)) {
      const hops = candidate[0]!.hops;
      const needed = this.inputFor(hops, amountOut);
      if (needed === undefined) continue;
      const q = this.price(candidate, needed);
      if (q.outAmount >= amountOut && (!best || q.inAmount < best.inAmount)) best = q;
    }
    if (!best) throw new NoRouteError('COULD_NOT_FIND_ANY_ROUTE', 'Could not find any route');
    return best;
  }

  private candidates(inputMint: string, outputMint: string, c: RouteConstraints, splits: boolean): Candidate[] {
    const from = this.byMint.get(inputMint);
    const to = this.byMint.get(outputMint);
    if (!from || !to) throw new NoRouteError('TOKEN_NOT_TRADABLE', `The token ${!from ? inputMint : outputMint} is not tradable`);
    if (from.mint === to.mint) throw new NoRouteError('COULD_NOT_FIND_ANY_ROUTE', 'Circular arbitrage is disabled');
    const maxAccounts = c.maxAccounts ?? MAX_ROUTE_ACCOUNTS;
    if (maxAccounts > MAX_ROUTE_ACCOUNTS) throw new NoRouteError('MAX_ACCOUNT_GREATER_THAN_MAX', `maxAccounts must be at most ${MAX_ROUTE_ACCOUNTS}`);
    const allowed = (h: Hop): boolean => (!c.dexes || c.dexes.length === 0 || c.dexes.includes(h.label)) && !(c.excludeDexes ?? []).includes(h.label);
    const pools = this.pools(from, to).filter(allowed);
    const out: Candidate[] = pools.map((h) => [{ hops: [h], share: 1 }]);
    if (!c.onlyDirectRoutes) {
      for (const hub of this.hubs) {
        if (hub.mint === from.mint || hub.mint === to.mint) continue;
        const hops = [this.hubHop(from, hub), this.hubHop(hub, to)];
        if (hops.every(allowed)) out.push([{ hops, share: 1 }]);
      }
    }
    if (splits) {
      // The deepest n pools of the pair in parallel, each taking input in proportion to its depth: for
      // constant-product pools that equalises the marginal price, the best split there is.
      for (let n = 2; n <= pools.length; n += 1) {
        const used = pools.slice(0, n);
        const depth = used.reduce((s, h) => s + h.liquidityUsd, 0);
        out.push(used.map((h) => ({ hops: [h], share: h.liquidityUsd / depth })));
      }
    }
    return out.filter((cand) => cand.reduce((n, p) => n + p.hops.length, 0) * ROUTE_ACCOUNTS_PER_LEG <= maxAccounts);
  }

  /** The pools of a pair, deepest first: the primary pool keeps the pair's historical address and DEX label. */
  private pools(from: SimToken, to: SimToken): Hop[] {
    const depth = Math.min(from.liquidityUsd, to.liquidityUsd);
    const primary = labelIndex(from.mint, to.mint);
    return POOL_DEPTH_SHARES.map((share, i) => ({
      from,
      to,
      liquidityUsd: depth * share,
      ammKey: ammKeyOf(from.mint, to.mint, i),
      label: DEX_LABELS[(primary + i * 3) % DEX_LABELS.length]!,
    }));
  }

  /** A hop through a hub token uses the pair's whole depth (the hub pairs are the market's deepest). */
  private hubHop(from: SimToken, to: SimToken): Hop {
    return { from, to, liquidityUsd: Math.min(from.liquidityUsd, to.liquidityUsd), ammKey: ammKeyOf(from.mint, to.mint), label: DEX_LABELS[labelIndex(from.mint, to.mint)]! };
  }

  private price(candidate: Candidate, amountIn: bigint): RouteQuote {
    const legs: RouteLeg[] = [];
    let inUsd = 0;
    let outAmount = 0n;
    let given = 0n;
    let bpsGiven = 0;
    const last = candidate[0]!.hops[candidate[0]!.hops.length - 1]!.to;
    candidate.forEach((path, p) => {
      const final = p === candidate.length - 1;
      const pathIn = final ? amountIn - given : BigInt(Math.floor(Number(amountIn) * path.share));
      const bps = final ? 10_000 - bpsGiven : Math.round(path.share * 10_000);
      given += pathIn;
      bpsGiven += bps;
      let amount = pathIn;
      for (const h of path.hops) {
        const usdIn = (Number(amount) / 10 ** h.from.decimals) * this.usd(h.from);
        if (h === path.hops[0]) inUsd += usdIn;
        const usdOut = (usdIn * h.liquidityUsd) / (h.liquidityUsd + usdIn);
        const out = BigInt(Math.floor((usdOut / this.usd(h.to)) * 10 ** h.to.decimals));
        legs.push({ ammKey: h.ammKey, label: h.label, inputMint: h.from.mint, outputMint: h.to.mint, inAmount: amount, outAmount: out, percent: Math.round(bps / 100), bps });
        amount = out;
      }
      outAmount += amount;
    });
    const outUsd = (Number(outAmount) / 10 ** last.decimals) * this.usd(last);
    return {
      inputMint: candidate[0]!.hops[0]!.from.mint,
      outputMint: last.mint,
      inAmount: amountIn,
      outAmount,
      legs,
      accounts: legs.length * ROUTE_ACCOUNTS_PER_LEG,
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
    const single: Candidate = [{ hops, share: 1 }];
    for (let i = 0; i < 8 && this.price(single, amountIn).outAmount < amountOut; i += 1) amountIn += amountIn / 10_000n + 1n;
    return amountIn;
  }

  private usd(token: SimToken): number {
    const p = this.prices.usd(token.mint);
    if (p === undefined) throw new NoRouteError('TOKEN_NOT_TRADABLE', `no price for ${token.mint}`);
    return p;
  }
}

/**
 * Pool addresses and DEX labels computed so far, by the text they hash: every quote names a pair's pools (four
 * addresses and a label, and those of the hub hops), a sha256 and a base58 encoding each. Always correct: each value
 * is a function of its text alone. Bounded, oldest dropped first.
 */
const ammKeys = new BoundedCache<string, string>(50_000);
const labels = new BoundedCache<string, number>(50_000);

/** A stable pool address for a pair (`index` 0 is the pair's primary pool; the others are its secondary pools). */
export function ammKeyOf(a: string, b: string, index = 0): string {
  const [x, y] = a < b ? [a, b] : [b, a];
  const text = index === 0 ? `amm:${x}:${y}` : `amm:${x}:${y}:${index}`;
  return ammKeys.getOr(text, () => bs58.encode(createHash('sha256').update(text).digest()));
}

function labelIndex(a: string, b: string): number {
  const [x, y] = a < b ? [a, b] : [b, a];
  const text = `label:${x}:${y}`;
  return labels.getOr(text, () => createHash('sha256').update(text).digest()[0]! % DEX_LABELS.length);
}
