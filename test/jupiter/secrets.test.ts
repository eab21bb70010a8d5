import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { createLogger } from '../../src/lib/logger.js';
import { stringifyJson } from '../../src/lib/amounts.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';

const KEY = 'jup_LEAKCANARY_7f3a9c2e1b';
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('the API key', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => server.close());

  it('is sent to the service but appears in no log line and no error, whatever fails', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger({ level: 'trace', destination: sink });
    const jup = createJupiterClient({ baseUrl: server.url, apiKey: KEY, tier: 'off', logger, retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 2 } });

    server.on('GET', '/price/v3', { status: 401, body: { code: 401, message: `Unauthorized key ${KEY}` } });
    server.on('GET', '/ultra/v1/order', { status: 503, body: { error: 'down' } });
    server.on('GET', '/swap/v1/quote', { status: 429, body: { message: 'Too many requests' }, headers: { 'retry-after': '0' } });
    server.on('GET', '/tokens/v2/recent', { body: [{ id: 'not-an-address', name: 1 }] });
    server.on('POST', '/ultra/v1/execute', { status: 400, body: { code: -1, error: 'Order not found' } });

    const errors = await Promise.all([
      jup.price.getPrices({ ids: [SOL] }).catch((e: unknown) => e),
      jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 10n }).catch((e: unknown) => e),
      jup.swap.getQuote({ inputMint: SOL, outputMint: USDC, amount: 10n }).catch((e: unknown) => e),
      jup.tokens.getRecentTokens().catch((e: unknown) => e),
      jup.ultra.executeOrder({ signedTransaction: 'AQID', requestId: 'r' }).catch((e: unknown) => e),
    ]);
    logger.flush();
    await new Promise((r) => setTimeout(r, 20));

    for (const req of server.requests) expect(req.headers['x-api-key']).toBe(KEY);
    expect(errors.every((e) => e instanceof Error)).toBe(true);
    for (const e of errors as Error[]) {
      for (const text of [e.message, String(e), e.stack ?? '', stringifyJson(e), JSON.stringify((e as { details?: unknown }).details ?? {})]) {
        expect(text).not.toContain(KEY);
      }
      logger.error({ err: e }, 'call failed');
    }
    logger.info({ client: jup, transport: jup.transport }, 'the client object itself');
    logger.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line).not.toContain(KEY);
    expect(JSON.stringify(jup.transport)).not.toContain(KEY);
  });
});
