// What a test sees of the hostile venue (test/helpers/hostileVenue.ts): its plan rules, records, counts and controls.
import type { Keypair } from '@solana/web3.js';
import type { Attack } from './hostileAttacks.js';
import type { ProductAttackRecord, ProductAttackRule } from './hostileProductProxy.js';

/** Which venue flow a rule or record is about: Ultra (order + execute) or Metis (quote + swap, sent by RPC). */
export type Flow = 'ultra' | 'metis';

/** One rule of the plan: which orders or quotes to attack, and how. */
export interface AttackRule {
  attack: Attack;
  /** Only this flow (both when omitted). */
  via?: Flow;
  /** Only requests for this input amount, base units: how a test points an attack at one strategy instance. */
  amount?: bigint;
  inputMint?: string;
  outputMint?: string;
  /** Attack at most this many requests (unlimited when omitted). */
  count?: number;
  /** Attack every n-th matching request (1, the default: all; 2: every other). */
  every?: number;
  /** Which of each `every` requests, 0-based (default 0: the first, third, ... with every 2). */
  offset?: number;
}

/** An attack the venue served (or tried to). */
export interface AttackRecord {
  rule: number;
  via: Flow;
  attack: Attack;
  /** Ultra requestId (null for Metis). */
  requestId: string | null;
  wallet: string;
  inputMint: string;
  /** The mint the keeper asked for. */
  askedOutputMint: string;
  /** The mint the transaction really pays out. */
  outputMint: string;
  amount: bigint;
  /** Whether a rewritten transaction reached the keeper; false with `error` when the attack could not be built. */
  served: boolean;
  error?: string;
  /** The unsigned attacked transaction, base64. */
  transaction?: string;
  /** Base64 of its message (what a signature signs). */
  message?: string;
  description?: string;
  /** The honest order (or quote and swap) response, and the lie served in its place. */
  honest?: unknown;
  servedBody?: unknown;
  /** Signatures of it landed by the venue (the wallet signed it). */
  landed: string[];
}

/** A signature the proxy saw in a request. */
export interface SeenSignature {
  /** Base58. */
  signature: string;
  /** Base58 of the signer whose slot it fills. */
  signer: string;
  /** Whether it verifies against the message. */
  valid: boolean;
  /** Base64 of the signed message. */
  message: string;
  source: 'execute' | 'sendTransaction' | 'simulateTransaction';
  path: string;
  requestId?: string;
  at: number;
}

/** One request the proxy received. */
export interface SeenRequest {
  at: number;
  method: string;
  /** Path without the query. */
  path: string;
  query: string;
  /** JSON-RPC method(s), for /rpc. */
  rpc?: string[];
  /** Input amount of an order or quote request. */
  amount?: string;
  /** An RPC call the proxy answered with a fault instead of forwarding it. */
  faulted?: boolean;
}

/** A fault of the RPC: the next calls of a method answer an error value as a lagging node would. */
export interface RpcFault {
  method: 'simulateTransaction';
  err: 'BlockhashNotFound';
  /** How many calls (unlimited when omitted: then `durationMs`, or `clearRpcFaults`). */
  count?: number;
  /** Real ms the fault stays active. */
  durationMs?: number;
}

/** Requests held at the proxy until released (what a test uses to catch the keeper mid-build). */
export interface Hold {
  /** Requests waiting now. */
  held(): number;
  /** The requests waiting now. */
  heldRequests(): SeenRequest[];
  /** Requests this hold has caught so far. */
  caught(): number;
  /** Resolves once `n` requests have been caught, rejects after `timeoutMs`. */
  waitForCaught(n: number, timeoutMs?: number): Promise<void>;
  /** Lets every held request (and later ones) through. */
  release(): void;
}

/** Counts of what the keeper sent, by kind. */
export interface VenueCounts {
  /** GET /ultra/v1/order. */
  orders: number;
  /** GET /swap/v1/quote. */
  quotes: number;
  /** POST /swap/v1/swap and /swap-instructions. */
  swaps: number;
  /** Every request that asks the venue to build a transaction or quote a trade (orders, quotes, swaps, create/cancel, craft, deposit, ...). */
  builds: number;
  /** POST .../execute. */
  executes: number;
  /** By `METHOD /path`. */
  byPath: Record<string, number>;
  /** JSON-RPC calls by method. */
  rpc: Record<string, number>;
  /** simulateTransaction calls answered with a fault. */
  faulted: number;
}

/** A running hostile venue. */
export interface HostileVenue {
  /** Origin to configure as the keeper's venue URL. */
  url: string;
  /** Where the attacks send what they steal, and the extra signer. */
  stranger: Keypair;
  /** Adds a rule (first matching rule decides); returns its index. */
  plan(rule: AttackRule): number;
  /** Removes every rule. */
  clearPlan(): void;
  /** Adds a product attack rule (hostileProducts.ts): builds of a product for a wallet are rewritten; returns its index. */
  planProduct(rule: ProductAttackRule): number;
  /** Removes every product attack rule. */
  clearProductPlan(): void;
  /** Product attacks served so far, oldest first. */
  productAttacks(): ProductAttackRecord[];
  /** Attacks served so far, oldest first. */
  attacks(): AttackRecord[];
  /** Requests received so far, oldest first. */
  requests(): SeenRequest[];
  counts(): VenueCounts;
  /** Signatures seen in requests (every signer unless `signer` is given; `valid` only when asked). */
  signatures(o?: { signer?: string; validOnly?: boolean }): SeenSignature[];
  /** Activates an RPC fault; returns its id. */
  rpcFault(fault: RpcFault): number;
  /** Removes one RPC fault, or all. */
  clearRpcFaults(id?: number): void;
  /** Holds matching requests (default: every build request) until released. */
  hold(match?: (r: SeenRequest) => boolean): Hold;
  close(): Promise<void>;
}

/** Lamports the stranger starts with (its balance must not change when every attack is refused). */
export const STRANGER_LAMPORTS = 10_000_000n;

/** Paths of requests that make the venue quote a trade or build a transaction. */
const BUILD_PATH = /^\/(ultra\/v1\/order|swap\/v1\/(quote|swap|swap-instructions)|trigger\/v1\/(createOrder|cancelOrders?)|recurring\/v1\/(createOrder|cancelOrder|priceDeposit|priceWithdraw)|lend\/v1\/earn\/(deposit|withdraw|mint|redeem)(-instructions)?|prediction\/v1\/(orders|positions)(\/.*)?|send\/v1\/craft-(send|clawback))$/;

/** Whether a request asks the venue to quote or build (POST, or GET for orders and quotes). */
export function isBuildRequest(r: Pick<SeenRequest, 'method' | 'path'>): boolean {
  if (!BUILD_PATH.test(r.path)) return false;
  if (r.path === '/ultra/v1/order' || r.path === '/swap/v1/quote') return r.method === 'GET';
  return r.method === 'POST' || r.method === 'DELETE';
}
