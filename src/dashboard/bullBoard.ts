import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import type { KeeperQueues } from '../scheduler/queues.js';

/** Where Bull Board is served. */
export const BULL_BOARD_PATH = '/queues';

/**
 * Mounts Bull Board at /queues, read-only. Retrying an execute job would run an order's execution again outside the
 * ledger's say, so nothing may change a job from here: every queue is in Bull Board's read-only mode (its API
 * answers 405 to retry, clean, promote, remove, pause...), and, in case a later Bull Board adds an action that mode
 * misses, every request to it other than GET and HEAD is refused before it reaches Bull Board.
 */
export function mountBullBoard(app: Hono, queues: KeeperQueues, prefix: string): void {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.all().map((q) => new BullMQAdapter(q, { readOnlyMode: true, allowRetries: false })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: `jup-keeper ${prefix}` } },
  });
  app.use(`${BULL_BOARD_PATH}/*`, async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return c.json({ error: 'Bull Board is read-only here: jobs are changed by the keeper only' }, 405);
    return next();
  });
  app.route(BULL_BOARD_PATH, adapter.registerPlugin());
}
