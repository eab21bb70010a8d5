import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono, MiddlewareHandler } from 'hono';
import type { KeeperQueues } from '../scheduler/queues.js';

/** Where Bull Board is served. */
export const BULL_BOARD_PATH = '/queues';

/**
 * What Bull Board's pages may load: their own scripts, styles, images and API on this dashboard, nothing from
 * elsewhere (its inline styles and the configuration it embeds as JSON need nothing more).
 */
export const BULL_BOARD_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

/**
 * Mounts Bull Board at /queues, read-only. Retrying an execute job would run an order's execution again outside the
 * ledger's say, so nothing may change a job from here: every queue is in Bull Board's read-only mode (its API
 * answers 405 to retry, clean, promote, remove, pause...), and, in case a later Bull Board adds an action that mode
 * misses, every request to it other than GET and HEAD is refused before it reaches Bull Board. Its pages are served
 * without their links to other sites (localOnly).
 */
export function mountBullBoard(app: Hono, queues: KeeperQueues, prefix: string): void {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.all().map((q) => new BullMQAdapter(q, { readOnlyMode: true, allowRetries: false })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: `jup-keeper ${prefix}` } },
  });
  for (const path of [BULL_BOARD_PATH, `${BULL_BOARD_PATH}/*`]) app.use(path, readOnly, localOnly);
  app.route(BULL_BOARD_PATH, adapter.registerPlugin());
}

/**
 * The dashboard needs nothing from the internet, but Bull Board's page asks Google Fonts for IBM Plex (a request that
 * fails offline and tells Google who looks at the dashboard). Its HTML is served without any `<link>` to another
 * site, so its stylesheet's own fallbacks (system-ui, ui-monospace) apply, and under a policy that lets the browser
 * load nothing from elsewhere should a later Bull Board add another such reference.
 */
const localOnly: MiddlewareHandler = async (c, next) => {
  await next();
  if (!(c.res.headers.get('content-type') ?? '').startsWith('text/html')) return;
  const html = await c.res.text();
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  headers.set('content-security-policy', BULL_BOARD_CSP);
  const status = c.res.status;
  // Unset first: Hono copies the old response's headers onto a new one (its content-length no longer fits).
  c.res = undefined;
  c.res = new Response(withoutExternalLinks(html), { status, headers });
};

/** Refuses every request but GET and HEAD (see mountBullBoard). */
const readOnly: MiddlewareHandler = async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return c.json({ error: 'Bull Board is read-only here: jobs are changed by the keeper only' }, 405);
  await next();
};

/** An HTML document without its `<link>` elements whose href leaves the site (absolute http(s) or protocol-relative). */
export function withoutExternalLinks(html: string): string {
  return html.replace(/<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\/[^>]*>\s*/gi, '');
}
