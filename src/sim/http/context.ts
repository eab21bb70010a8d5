import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { Logger } from '../../lib/logger.js';
import type { SimState } from '../state.js';
import type { FaultController } from './faults.js';

/** What every route module of the simulator gets. Read `state` at request time: a reset replaces it. */
export interface SimContext {
  state: SimState;
  faults: FaultController;
  logger: Logger;
}

/** Sends a JSON body with bigints written as decimal strings. */
export function sendJson(c: Context, body: unknown, status: ContentfulStatusCode = 200): Response {
  return c.body(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)), status, {
    'content-type': 'application/json',
  });
}

/** Result of reading request input with a zod schema: the value, or an explanation naming the bad field. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** Parses input with a schema, turning the first issues into one readable sentence naming the fields. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const r = schema.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  const message = r.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ');
  return { ok: false, message };
}

/** The query string as a plain object (last value wins). */
export function queryOf(c: Context): Record<string, string> {
  return Object.fromEntries(new URL(c.req.url).searchParams.entries());
}

/** Reads a JSON body; undefined when it is missing or not JSON. */
export async function jsonBody(c: Context): Promise<unknown> {
  try {
    const text = await c.req.text();
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
