import { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { portfolioPositions, PORTFOLIO_PLATFORMS } from '../products/portfolio.js';
import { parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { positionsQuery, walletPath } from './requests/portfolio.js';

type Env = { Bindings: HttpBindings };

/**
 * The Portfolio API v1 (beta, jupiter-api.md §10): positions of a wallet, the platforms it reports on, and staked
 * JUP (the simulator has no governance staking: every wallet has none staked). Errors are `{error}`.
 */
export function portfolioRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  app.get('/positions/:address', (c) => {
    const address = parseInput(walletPath, c.req.param('address'));
    if (!address.ok) return sendJson(c, { error: `address: ${address.message.replace(/^body: /, '')}` }, 400);
    const query = parseInput(positionsQuery, queryOf(c));
    if (!query.ok) return sendJson(c, { error: query.message }, 400);
    const platforms = query.value.platforms && query.value.platforms.length > 0 ? query.value.platforms : undefined;
    return sendJson(c, portfolioPositions(ctx.state, address.value, platforms));
  });
  app.get('/platforms', (c) =>
    sendJson(
      c,
      PORTFOLIO_PLATFORMS.map((p) => ({
        id: p.id,
        name: p.name,
        image: `https://sonar.watch/img/platforms/${p.id}.webp`,
        description: p.description,
        ...(p.defiLlamaId ? { defiLlamaId: p.defiLlamaId } : {}),
        isDeprecated: false,
        tokens: [],
        tags: [],
        links: { website: p.link },
      })),
    ),
  );
  app.get('/staked-jup/:address', (c) => {
    const address = parseInput(walletPath, c.req.param('address'));
    if (!address.ok) return sendJson(c, { error: `address: ${address.message.replace(/^body: /, '')}` }, 400);
    return sendJson(c, { stakedAmount: 0, unstaking: [] });
  });
  return app;
}
