import { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { SimContext } from './context.js';

/** (being written) */
export function ultraDataRoutes(_ctx: SimContext): Hono<{ Bindings: HttpBindings }> {
  return new Hono<{ Bindings: HttpBindings }>();
}
