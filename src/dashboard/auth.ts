import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { isLoopback } from './settings.js';

/** The browser's session cookie: an HMAC of the token, never the token itself. */
export const SESSION_COOKIE = 'jk_dashboard';
/** The header a state-changing request must carry, with the page's CSRF token. */
export const CSRF_HEADER = 'x-jk-csrf';

/** The dashboard's credentials, derived from DASHBOARD_TOKEN (or from a random secret of this process without one). */
export interface DashboardAuth {
  /** Whether a token is required (DASHBOARD_TOKEN set). */
  required: boolean;
  /** The CSRF token the status page carries and its POSTs send back. */
  csrf: string;
  /** Every request passes through this first. */
  middleware: MiddlewareHandler;
  /** State-changing routes pass through this too (after `middleware`). */
  csrfGuard: MiddlewareHandler;
}

/**
 * Builds the dashboard's access control. With a token: a request needs `Authorization: Bearer <token>` or the
 * session cookie, which `?token=<token>` on any page sets (then redirects to the same page without it, so the token
 * leaves the address bar); anything else gets 401. Without one (loopback only): a request must name a loopback host,
 * so a web page that rebinds its own name to 127.0.0.1 cannot read the dashboard. The token never reaches a log, an
 * error or a response.
 */
export function dashboardAuth(token: string | undefined): DashboardAuth {
  const secret = token === undefined ? randomBytes(32) : createHash('sha256').update(`jup-keeper dashboard\0${token}`).digest();
  const mac = (what: string) => createHmac('sha256', secret).update(what).digest('base64url');
  const session = mac('session');
  const csrf = mac('csrf');
  const tokenDigest = token === undefined ? undefined : digest(token);
  const tokenMatches = (given: string | undefined) => given !== undefined && tokenDigest !== undefined && timingSafeEqual(digest(given), tokenDigest);

  const middleware: MiddlewareHandler = async (c, next) => {
    if (token === undefined) {
      if (!isLoopback(hostOf(c.req.header('host')))) return c.text('this dashboard answers only to a loopback host name (127.0.0.1, localhost)\n', 403);
      return next();
    }
    const url = new URL(c.req.url);
    const given = url.searchParams.get('token');
    if (given !== null) {
      if (!tokenMatches(given)) return unauthorized(c);
      setCookie(c, SESSION_COOKIE, session, { httpOnly: true, sameSite: 'Strict', path: '/', secure: url.protocol === 'https:' });
      url.searchParams.delete('token');
      c.header('cache-control', 'no-store');
      // A path, never an address: `//host/...` would send the browser elsewhere.
      return c.redirect(`${url.pathname.replace(/^\/+/, '/')}${url.search}`, 303);
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim();
    const cookie = getCookie(c, SESSION_COOKIE);
    if (tokenMatches(bearer) || (cookie !== undefined && safeEqual(cookie, session))) return next();
    return unauthorized(c);
  };

  const csrfGuard: MiddlewareHandler = async (c, next) => {
    if (c.req.method !== 'POST') return c.json({ error: 'POST only' }, 405);
    const site = c.req.header('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin') return c.json({ error: 'cross-site request refused' }, 403);
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null' && hostOf(origin.replace(/^[a-z]+:\/\//i, ''), true) !== hostOf(c.req.header('host'), true)) return c.json({ error: 'cross-origin request refused' }, 403);
    if (origin === 'null') return c.json({ error: 'cross-origin request refused' }, 403);
    if (!safeEqual(c.req.header(CSRF_HEADER) ?? '', csrf)) return c.json({ error: `missing or wrong ${CSRF_HEADER} header (reload the page)` }, 403);
    return next();
  };

  return { required: token !== undefined, csrf, middleware, csrfGuard };
}

function unauthorized(c: Context): Response {
  c.header('www-authenticate', 'Bearer realm="jup-keeper dashboard"');
  c.header('cache-control', 'no-store');
  if ((c.req.header('accept') ?? '').includes('text/html')) {
    return c.html('<!doctype html><meta charset="utf-8"><title>jup-keeper: token needed</title><p>This dashboard needs its token (DASHBOARD_TOKEN): open <code>/?token=…</code> once in this browser, or send <code>Authorization: Bearer …</code>.</p>', 401);
  }
  return c.json({ error: 'unauthorized: this dashboard needs DASHBOARD_TOKEN (Authorization: Bearer, or the cookie set by ?token=)' }, 401);
}

/** The host of a Host header or an origin, without its port (or with it, `withPort`), lower case. */
function hostOf(value: string | undefined, withPort = false): string {
  const v = (value ?? '').trim().toLowerCase().replace(/\/.*$/, '');
  if (withPort) return v;
  if (v.startsWith('[')) return v.slice(0, v.indexOf(']') + 1);
  const colon = v.lastIndexOf(':');
  return colon >= 0 ? v.slice(0, colon) : v;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
