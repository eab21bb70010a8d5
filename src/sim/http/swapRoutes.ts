import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { jsonBody, parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { swapBody, swapQuoteQuery } from './requests/swap.js';

/** Program ids the simulated routes mention, by label (GET /swap/v1/program-id-to-label). */
const PROGRAM_LABELS: Record<string, string> = {
  JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: 'Jupiter V6',
  LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo: 'Meteora DLMM',
  CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK: 'Raydium CLMM',
  whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc: 'Whirlpool',
  '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8': 'Raydium',
  '9W959DqEETiGZocYWCQPaJ6sBmUzgfxXfqGeTEdp3aQP': 'Orca V2',
  PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY: 'Phoenix',
  '2wT8Yq49kHgDzXuPxZSaeLaH1qbmGXtEyPy64bL7aD3c': 'Lifinity V2',
  SoLFiHG9TfgtdUXUjWAxi3LtvYuFyDLVhBWxdMZxyCe: 'SolFi',
};

/** Metis swap v1: quote, swap, swap-instructions, program-id-to-label. */
export function swapRoutes(ctx: SimContext): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get('/quote', (c) => {
    const query: Record<string, unknown> = { ...queryOf(c) };
    for (const key of ['dexes', 'excludeDexes'] as const) {
      const values = c.req.queries(key);
      if (values) query[key] = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
    }
    const parsed = parseInput(swapQuoteQuery, query);
    if (!parsed.ok) return sendJson(c, { error: parsed.message, errorCode: 'INVALID_REQUEST' }, 400);
    const reply = ctx.state.swap.quote(parsed.value);
    return sendJson(c, reply.body, reply.status);
  });
  const build = (kind: 'swap' | 'swapInstructions') => async (c: Context<{ Bindings: HttpBindings }>) => {
    const parsed = parseInput(swapBody, await jsonBody(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message, errorCode: 'INVALID_REQUEST' }, 400);
    const hostile = ctx.faults.take('hostile-order', c.req.path) !== undefined;
    const desk = ctx.state.swap;
    const reply = kind === 'swap' ? desk.swap(parsed.value, hostile) : desk.swapInstructions(parsed.value, hostile);
    return sendJson(c, reply.body, reply.status);
  };
  app.post('/swap', build('swap'));
  app.post('/swap-instructions', build('swapInstructions'));
  app.get('/program-id-to-label', (c) => sendJson(c, PROGRAM_LABELS));
  return app;
}
