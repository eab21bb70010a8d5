import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import {
  BadRequestError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  SchemaError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from '../../src/jupiter/errors.js';
import { AbortedError } from '../../src/lib/errors.js';
import { u64 } from '../../src/jupiter/schemas.js';

const schema = z.object({ amount: u64, requestId: z.string() });

describe('the Jupiter transport', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  const call = (path: string, overrides = {}) =>
    testTransport(server.url, overrides).request({ endpoint: 'test.thing', method: 'GET', path, schema });

  it('parses amounts into bigint', async () => {
    server.on('GET', '/ok', { body: { amount: '18446744073709551615', requestId: 'r-1', extra: true } });
    await expect(call('/ok')).resolves.toEqual({ amount: 18446744073709551615n, requestId: 'r-1' });
  });

  it('names the endpoint and the field when the body breaks the schema', async () => {
    server.on('GET', '/bad', { body: { amount: '12abc', requestId: 'r' } });
    const err = await call('/bad').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaError);
    expect((err as SchemaError).message).toContain('test.thing');
    expect((err as SchemaError).message).toContain('amount');
    expect((err as SchemaError).issues[0]!.path).toBe('amount');
  });

  it('rejects a body with a missing requestId', async () => {
    server.on('GET', '/norequest', { body: { amount: '1' } });
    const err = await call('/norequest').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaError);
    expect((err as SchemaError).issues.map((i) => i.path)).toContain('requestId');
  });

  it('reports malformed JSON as a schema error of the whole body', async () => {
    server.on('GET', '/garbage', { raw: '{"amount": "1", ' });
    const err = await call('/garbage').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaError);
    expect((err as SchemaError).issues[0]!.path).toBe('(root)');
  });

  it.each([
    [400, BadRequestError, 'abandon'],
    [401, UnauthorizedError, 'halt'],
    [403, ForbiddenError, 'halt'],
    [404, NotFoundError, 'abandon'],
  ] as const)('maps HTTP %i to a typed error without retrying', async (status, cls, action) => {
    server.on('GET', `/status${status}`, { status, body: { error: 'nope', code: status } });
    const err = await call(`/status${status}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(cls);
    expect((err as BadRequestError).code).toBe(`JUP_HTTP_${status}`);
    expect((err as BadRequestError).action).toBe(action);
    expect((err as BadRequestError).body).toEqual({ error: 'nope', code: status });
    expect(server.requestsTo(`/status${status}`)).toHaveLength(1);
  });

  it('retries a 5xx and succeeds when the service recovers', async () => {
    let n = 0;
    server.on('GET', '/flaky', () => (++n < 3 ? { status: 503, body: { error: 'down' } } : { body: { amount: '5', requestId: 'x' } }));
    await expect(call('/flaky')).resolves.toEqual({ amount: 5n, requestId: 'x' });
    expect(server.requestsTo('/flaky')).toHaveLength(3);
  });

  it('gives up after the retry budget with a ServerError', async () => {
    server.on('GET', '/down', { status: 500, body: { error: 'boom' } });
    const err = await call('/down').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(server.requestsTo('/down')).toHaveLength(3);
  });

  it('waits as the 429 headers say, then succeeds', async () => {
    let n = 0;
    server.on('GET', '/limited', () =>
      ++n === 1
        ? { status: 429, body: { code: 429, message: '[API Gateway] Too many requests' }, headers: { 'retry-after': '0.3', 'x-ratelimit-remaining': '0' } }
        : { body: { amount: '1', requestId: 'y' } },
    );
    const started = Date.now();
    await expect(call('/limited')).resolves.toEqual({ amount: 1n, requestId: 'y' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('reports a 429 as RateLimitError with the wait time when retries run out', async () => {
    server.on('GET', '/storm', { status: 429, body: { code: 429, message: 'Too many requests' }, headers: { 'retry-after': '0.05' } });
    const err = await call('/storm', { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBeGreaterThanOrEqual(50);
  });

  it('does not retry requests marked as not retryable', async () => {
    server.on('GET', '/once', { status: 502, body: { error: 'bad gateway' } });
    const t = testTransport(server.url);
    const err = await t.request({ endpoint: 'test.once', method: 'GET', path: '/once', schema, retry: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(server.requestsTo('/once')).toHaveLength(1);
  });

  it('times out a slow response', async () => {
    server.on('GET', '/slow', { delayMs: 400, body: { amount: '1', requestId: 'z' } });
    const err = await call('/slow', { timeoutMs: 100, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    // It names where it waited: which address did not answer.
    expect((err as Error).message).toBe(`test.thing: no response from ${new URL(server.url).origin} within 100 ms`);
  });

  it('stops at once when the caller aborts', async () => {
    server.on('GET', '/abort', { delayMs: 400, body: { amount: '1', requestId: 'z' } });
    const controller = new AbortController();
    const t = testTransport(server.url);
    const pending = t.request({ endpoint: 'test.abort', method: 'GET', path: '/abort', schema, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });

  it('reports a refused connection as a NetworkError', async () => {
    const t = testTransport('http://127.0.0.1:1', { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const err = await t.request({ endpoint: 'test.net', method: 'GET', path: '/', schema }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    // It names the address it could not reach.
    expect((err as Error).message).toMatch(/^test\.net: network error reaching http:\/\/127\.0\.0\.1:1: /);
  });

  it('sends x-api-key only when a key is configured', async () => {
    server.on('GET', '/auth', { body: { amount: '1', requestId: 'a' } });
    await call('/auth', { apiKey: 'jup_test_key_visible' });
    await call('/auth');
    const [keyed, keyless] = server.requestsTo('/auth');
    expect(keyed!.headers['x-api-key']).toBe('jup_test_key_visible');
    expect(keyless!.headers['x-api-key']).toBeUndefined();
  });
});
