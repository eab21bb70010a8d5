import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { balances, holdings, nativeHoldings, shield } from '../products/holdings.js';
import { search } from '../products/tokenLists.js';
import { parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { searchQuery } from './requests/tokens.js';
import { shieldQuery, walletPath } from './requests/ultra.js';

/** The routers of Ultra's engine (GET /ultra/v1/order/routers); ids are those `excludeRouters` accepts. */
const ROUTERS = [
  { id: 'metis', name: 'Metis', icon: 'https://static.jup.ag/routers/metis.svg' },
  { id: 'jupiterz', name: 'JupiterZ', icon: 'https://static.jup.ag/routers/jupiterz.svg' },
  { id: 'dflow', name: 'DFlow', icon: 'https://static.jup.ag/routers/dflow.svg' },
  { id: 'okx', name: 'OKX DEX Router', icon: 'https://static.jup.ag/routers/okx.svg' },
];

type Ctx = Context<{ Bindings: HttpBindings }>;

/** The wallet address of a holdings path, or undefined (the caller answers `{"error":"Invalid address"}`). */
function walletOf(c: Ctx): string | undefined {
  const parsed = walletPath.safeParse(c.req.param('address'));
  return parsed.success ? parsed.data : undefined;
}

/** The data endpoints of /ultra/v1: search, holdings, balances, shield and routers (order and execute live in ultraRoutes.ts). */
export function ultraDataRoutes(ctx: SimContext): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();

  app.get('/search', (c) => {
    const parsed = parseInput(searchQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = search(ctx.state.venue, parsed.value.query, 'ultra');
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/holdings/:address', (c) => {
    const wallet = walletOf(c);
    if (!wallet) return sendJson(c, { error: 'Invalid address' }, 400);
    const reply = holdings(ctx.state.venue, wallet);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/holdings/:address/native', (c) => {
    const wallet = walletOf(c);
    if (!wallet) return sendJson(c, { error: 'Invalid address' }, 400);
    const reply = nativeHoldings(ctx.state.venue, wallet);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/balances/:address', (c) => {
    const wallet = walletOf(c);
    if (!wallet) return sendJson(c, { error: 'Invalid address' }, 400);
    const reply = balances(ctx.state.venue, wallet);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/shield', (c) => {
    const parsed = parseInput(shieldQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = shield(ctx.state.venue, parsed.value.mints);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/order/routers', (c) => sendJson(c, ROUTERS));

  return app;
}
