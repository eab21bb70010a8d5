import type { Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { TimeRecurringOrder } from '../../src/jupiter/recurring/index.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { signBase64 } from '../helpers/sim.js';

/** The project's own client against a simulator: no rate limit, no retries (a refusal shows at once). */
export function recurringClient(sim: RunningSimulator): JupiterClient {
  return createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
}

/** Terms of a test order; prices in USD of the input for the client's minimum checks. */
export interface OrderTerms {
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  numberOfOrders: number;
  interval: number;
  minPrice?: number;
  maxPrice?: number;
  /** USD price of the input the client checks the minimums with (defaults to the venue's). */
  inputUsdPrice?: number;
}

/** Creates, signs and executes a recurring order through the client; returns the order account and signature. */
export async function openRecurringOrder(sim: RunningSimulator, jup: JupiterClient, user: Keypair, terms: OrderTerms): Promise<{ order: string; signature: string; requestId: string }> {
  const token = sim.ctx.state.venue.token(terms.inputMint)!;
  const created = await jup.recurring.createOrder({
    user: user.publicKey.toBase58(),
    inputMint: terms.inputMint,
    outputMint: terms.outputMint,
    params: { inAmount: terms.inAmount, numberOfOrders: terms.numberOfOrders, interval: terms.interval, minPrice: terms.minPrice, maxPrice: terms.maxPrice },
    inputUsdPrice: terms.inputUsdPrice ?? sim.ctx.state.venue.prices.usd(terms.inputMint)!,
    inputDecimals: token.decimals,
  });
  const executed = await jup.recurring.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, user) });
  if (!executed.order) throw new Error('execute returned no order');
  return { order: executed.order, signature: executed.signature, requestId: created.requestId };
}

/** Cancels an order through the client (build, sign, execute); returns the signature. */
export async function cancelRecurringOrder(jup: JupiterClient, user: Keypair, order: string): Promise<string> {
  const built = await jup.recurring.cancelOrder({ order, user: user.publicKey.toBase58() });
  const executed = await jup.recurring.execute({ requestId: built.requestId, signedTransaction: signBase64(built.transaction, user) });
  return executed.signature;
}

/** A user's time orders, open or ended, through the client: every page. */
export async function timeOrders(jup: JupiterClient, user: Keypair | string, orderStatus: 'active' | 'history'): Promise<TimeRecurringOrder[]> {
  const address = typeof user === 'string' ? user : user.publicKey.toBase58();
  const out: TimeRecurringOrder[] = [];
  for (let page = 1; ; page += 1) {
    const r = await jup.recurring.getOrders({ user: address, orderStatus, recurringType: 'time', page });
    out.push(...r.orders.filter((o): o is TimeRecurringOrder => o.recurringType === 'time'));
    if (!r.hasMore) return out;
  }
}

/**
 * Polls until `check` returns a value (not undefined), then returns it. Bounded only so that a venue that never
 * gets there fails the test instead of hanging it; a slow machine just polls longer.
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, tries = 1_200): Promise<T> {
  for (let i = 0; i < tries; i += 1) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}
