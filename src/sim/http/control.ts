import { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { PublicKey } from '@solana/web3.js';
import { z } from 'zod';
import { address, u64StringOrNumber } from './requests/params.js';
import { faultSpecSchema } from './faults.js';
import { jsonBody, parseInput, sendJson, type SimContext } from './context.js';
import { sendControlRoutes } from './sendRoutes.js';
import { lendControlRoutes } from './lendRoutes.js';
import { predictionControlRoutes } from './predictionRoutes.js';
import { ultraControlRoutes } from './ultraControlRoutes.js';

const airdropBody = z.object({ wallet: address, mint: z.string().min(1), amount: u64StringOrNumber });
const priceBody = z.object({ mint: z.string().min(1), usd: z.number().positive().finite() });
const orderBody = z.object({ order: z.string().min(1).max(128).optional() }).strict();
const clockBody = z.object({ advanceMs: z.number().min(0).max(365 * 86_400_000).optional(), speed: z.number().min(0).max(10_000).optional() });

/**
 * Control endpoints under /__sim/ for tests and demos: airdrops, tokens, prices, the clock, the ledger, faults and
 * reset. They bypass the gateway (no key, no rate limit), like a local validator's admin surface.
 */
export function controlRoutes(ctx: SimContext, reset: () => void): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  const bad = (message: string) => ({ error: message });

  app.post('/airdrop', async (c) => {
    const parsed = parseInput(airdropBody, await jsonBody(c));
    if (!parsed.ok) return sendJson(c, bad(parsed.message), 400);
    const venue = ctx.state.venue;
    const token = venue.resolveToken(parsed.value.mint);
    if (!token) return sendJson(c, bad(`unknown mint ${parsed.value.mint}; GET /__sim/tokens lists them`), 400);
    try {
      const signature = venue.airdrop(new PublicKey(parsed.value.wallet), token.mint, parsed.value.amount);
      return sendJson(c, { signature, mint: token.mint, amount: parsed.value.amount });
    } catch (err) {
      // e.g. SOL below the rent-exempt minimum for a new account: the faucet transaction fails, as on a validator.
      return sendJson(c, bad(err instanceof Error ? err.message : String(err)), 400);
    }
  });

  // What a client needs to know about this venue before trusting its transactions: who else may sign them (the
  // vault, the keeper, and Jupiter's gas wallet, which opens a JupiterZ taker's output account), and where its
  // Solana RPC is. A JupiterZ market maker is not declared: it pays the fee of what it signs.
  app.get('/venue', (c) => sendJson(c, { coSigners: [...ctx.state.venue.coSigners(), ctx.state.ultra.gasWallet()].map((k) => k.toBase58()), rpcPath: '/rpc' }));

  app.get('/tokens', (c) => {
    const venue = ctx.state.venue;
    return sendJson(c, {
      tokens: venue.tokens.map((t) => ({ symbol: t.symbol, name: t.name, mint: t.mint, decimals: t.decimals, program: t.program, category: t.category, usdPrice: venue.prices.usd(t.mint) })),
    });
  });

  app.post('/price', async (c) => {
    const parsed = parseInput(priceBody, await jsonBody(c));
    if (!parsed.ok) return sendJson(c, bad(parsed.message), 400);
    const venue = ctx.state.venue;
    const token = venue.resolveToken(parsed.value.mint);
    if (!token) return sendJson(c, bad(`unknown mint ${parsed.value.mint}`), 400);
    venue.prices.setUsd(token.mint, parsed.value.usd);
    // Resting orders react to the new price at once (a limit crossed fills).
    venue.runKeepers();
    return sendJson(c, { mint: token.mint, usdPrice: venue.prices.usd(token.mint) });
  });

  const clockState = () => {
    const clock = ctx.state.venue.clock;
    return { nowMs: Math.floor(clock.now()), speed: clock.getSpeed(), slot: clock.slot(), blockHeight: clock.blockHeight() };
  };
  app.get('/clock', (c) => sendJson(c, clockState()));
  app.post('/clock', async (c) => {
    const parsed = parseInput(clockBody, (await jsonBody(c)) ?? {});
    if (!parsed.ok) return sendJson(c, bad(parsed.message), 400);
    const clock = ctx.state.venue.clock;
    if (parsed.value.speed !== undefined) clock.setSpeed(parsed.value.speed);
    if (parsed.value.advanceMs !== undefined) clock.advance(parsed.value.advanceMs);
    // Resting orders react at once to the time that passed (fills, recurring slices, expiries).
    ctx.state.venue.runKeepers();
    return sendJson(c, clockState());
  });

  // Send claims: the real service takes them only in Jupiter Mobile, for which the simulator stands in.
  app.route('/send', sendControlRoutes(ctx));
  // Lend Earn rates (bps a year): the interest a deposit earns from now on.
  app.route('/lend', lendControlRoutes(ctx));
  // Prediction markets: resolve one now.
  app.route('/prediction', predictionControlRoutes(ctx));
  // Ultra's routes: which one orders take (JupiterZ RFQ or Metis).
  app.route('/ultra', ultraControlRoutes(ctx));
  app.get('/escrows', (c) => sendJson(c, { escrows: ctx.state.escrows.list() }));
  app.post('/orders/fill', async (c) => {
    const parsed = parseInput(orderBody, (await jsonBody(c)) ?? {});
    if (!parsed.ok) return sendJson(c, bad(parsed.message), 400);
    return sendJson(c, { filled: ctx.state.venue.fillNow(parsed.value.order), keeperError: ctx.state.venue.lastKeeperError });
  });
  app.post('/orders/expire', async (c) => {
    const parsed = parseInput(orderBody, (await jsonBody(c)) ?? {});
    if (!parsed.ok) return sendJson(c, bad(parsed.message), 400);
    return sendJson(c, { expired: ctx.state.venue.expireNow(parsed.value.order), keeperError: ctx.state.venue.lastKeeperError });
  });

  app.get('/ledger', (c) => {
    const transactions = ctx.state.venue.chain.ledger.map((e) => ({
      signature: e.signature,
      kind: e.kind,
      wallet: e.wallet,
      requestId: e.requestId,
      slot: Number(e.slot),
      inputMint: e.inputMint,
      inputAmount: e.inputAmount,
      outputMint: e.outputMint,
      outputAmount: e.outputAmount,
      ...(e.fee ? { fee: e.fee } : {}),
    }));
    return sendJson(c, { transactions });
  });

  app.get('/balances/:wallet', (c) => {
    const wallet = c.req.param('wallet');
    if (!address.safeParse(wallet).success) return sendJson(c, bad('wallet is not a valid base58 address'), 400);
    const venue = ctx.state.venue;
    const owner = new PublicKey(wallet);
    return sendJson(c, {
      lamports: venue.chain.lamports(owner),
      tokens: venue.chain.tokenAccountsOf(wallet).map((a) => ({ mint: a.mint, account: a.address, amount: a.amount, symbol: venue.token(a.mint)?.symbol ?? null })),
    });
  });

  app.get('/faults', (c) => sendJson(c, { faults: ctx.faults.list() }));
  app.post('/faults', async (c) => {
    const parsed = parseInput(faultSpecSchema, await jsonBody(c));
    if (!parsed.ok) return sendJson(c, bad(parsed.message), 400);
    return sendJson(c, { id: ctx.faults.add(parsed.value) });
  });
  app.delete('/faults', (c) => {
    ctx.faults.clear();
    return sendJson(c, { faults: [] });
  });
  app.delete('/faults/:id', (c) => {
    ctx.faults.clear(Number(c.req.param('id')));
    return sendJson(c, { faults: ctx.faults.list() });
  });

  app.post('/reset', (c) => {
    reset();
    ctx.faults.clear();
    return sendJson(c, { reset: true, ...clockState() });
  });
  return app;
}
