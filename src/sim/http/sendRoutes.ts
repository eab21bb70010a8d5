import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { z } from 'zod';
import type { Reply } from '../products/common.js';
import { jsonBody, parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { claimBody, craftClawbackBody, craftSendBody, inviteListQuery } from './requests/send.js';

type Env = { Bindings: HttpBindings };

function answer(c: Context<Env>, reply: Reply): Response {
  return sendJson(c, reply.body, reply.status);
}

/** Parses input with `schema` and answers the service's `{error}` 400 when it does not fit. */
function withInput<S extends z.ZodType>(c: Context<Env>, schema: S, input: unknown, handle: (value: z.output<S>) => Reply): Response {
  const parsed = parseInput(schema, input);
  if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
  return answer(c, handle(parsed.value));
}

/** The Send API under /send/v1 (jupiter-api.md §10, openapi/send.yaml). */
export function sendRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  app.post('/craft-send', async (c) => withInput(c, craftSendBody, await jsonBody(c), (b) => ctx.state.send.craftSend(b)));
  app.post('/craft-clawback', async (c) => withInput(c, craftClawbackBody, await jsonBody(c), (b) => ctx.state.send.craftClawback(b)));
  app.get('/pending-invites', (c) => withInput(c, inviteListQuery, queryOf(c), (q) => ctx.state.send.pendingInvites(q)));
  app.get('/invite-history', (c) => withInput(c, inviteListQuery, queryOf(c), (q) => ctx.state.send.inviteHistory(q)));
  return app;
}

/**
 * The recipient's side of Send, under /__sim/send: the real service takes claims only in Jupiter Mobile, so the
 * simulator stands in for the app. POST /claim `{code, receiver}` pays the invite to `receiver`.
 */
export function sendControlRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  app.post('/claim', async (c) => withInput(c, claimBody, await jsonBody(c), (b) => ctx.state.send.claim(b)));
  return app;
}
