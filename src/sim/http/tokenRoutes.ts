import { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { content, cooking, feed, summaries } from '../products/content.js';
import { byCategory, byTag, recent, search } from '../products/tokenLists.js';
import { parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { categoryInput, contentFeedQuery, contentMintsQuery, searchQuery, tagQuery } from './requests/tokens.js';

/**
 * Tokens V2 under /tokens/v2: search, tag, the rankings, recent, and the Content endpoints of content.yaml. The
 * fixed two-segment paths (/content/feed, /content/cooking) are registered before /{category}/{interval}.
 */
export function tokenRoutes(ctx: SimContext): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();

  app.get('/search', (c) => {
    const parsed = parseInput(searchQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = search(ctx.state.venue, parsed.value.query, 'tokens');
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/tag', (c) => {
    const parsed = parseInput(tagQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = byTag(ctx.state.venue, parsed.value.query);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/recent', (c) => {
    const reply = recent(ctx.state.venue);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/content', (c) => {
    const parsed = parseInput(contentMintsQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = content(ctx.state.venue, parsed.value.mints);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/content/feed', (c) => {
    const parsed = parseInput(contentFeedQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = feed(ctx.state.venue, parsed.value);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/content/cooking', (c) => {
    const reply = cooking(ctx.state.venue);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/v1/content/summaries', (c) => {
    const parsed = parseInput(contentMintsQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = summaries(ctx.state.venue, parsed.value.mints);
    return sendJson(c, reply.body, reply.status);
  });

  app.get('/:category/:interval', (c) => {
    const parsed = parseInput(categoryInput, { ...queryOf(c), category: c.req.param('category'), interval: c.req.param('interval') });
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = byCategory(ctx.state.venue, parsed.value);
    return sendJson(c, reply.body, reply.status);
  });

  return app;
}
