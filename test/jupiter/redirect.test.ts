import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { RedirectError } from '../../src/jupiter/transport.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';

const KEY = 'jup_REDIRECTCANARY_5d1e9b7c3a';
const SOL = 'So11111111111111111111111111111111111111112';
const PRICE = { [SOL]: { usdPrice: 150, decimals: 9 } };
const fast = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 };

describe('the API key and other origins', () => {
  let a: FixtureServer;
  let b: FixtureServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([startFixtureServer(), startFixtureServer()]);
    b.on('GET', '/price/v3', { body: PRICE });
    b.on('POST', '/ultra/v1/execute', { body: { status: 'Success', signature: 'x' } });
  });
  afterAll(async () => Promise.all([a.close(), b.close()]));

  describe('when the keyed service answers with a redirect to another origin', () => {
    it('follows none, sends the other origin nothing, and fails with an error naming the redirect (not its path)', async () => {
      a.on('GET', '/price/v3', { status: 302, headers: { location: `${b.url}/price/v3?ids=${SOL}&token=LEAKY` } });
      a.on('POST', '/ultra/v1/execute', { status: 307, headers: { location: `${b.url}/ultra/v1/execute` } });
      const jup = createJupiterClient({ baseUrl: a.url, apiKey: KEY, tier: 'off', retry: fast });

      const get = await jup.price.getPrices({ ids: [SOL] }).catch((e: unknown) => e);
      const post = await jup.ultra.executeOrder({ signedTransaction: 'AQID', requestId: 'r-1' }).catch((e: unknown) => e);

      for (const err of [get, post]) {
        expect(err).toBeInstanceOf(RedirectError);
        expect(err).toMatchObject({ code: 'JUP_REDIRECT', action: 'halt' });
        expect((err as Error).message).toContain(`redirect to ${b.url} not followed`);
        expect((err as Error).message).not.toContain('LEAKY');
        expect((err as Error).message).not.toContain(KEY);
      }
      expect((get as RedirectError).status).toBe(302);
      expect((post as RedirectError).status).toBe(307);
      // The configured service did get the key; the address it pointed to got no request at all.
      expect(a.requests.map((r) => r.headers['x-api-key'])).toEqual([KEY, KEY]);
      expect(b.requests).toHaveLength(0);
    });
  });

  describe('when the base URL is not the keyed origin', () => {
    it('sends no key and counts as keyless, though a key is configured', async () => {
      const before = b.requests.length;
      const jup = createJupiterClient({ baseUrl: b.url, apiKey: KEY, keyedBaseUrl: 'https://api.jup.ag', retry: fast });
      expect(await jup.price.getPrices({ ids: [SOL] })).toMatchObject({ [SOL]: { usdPrice: 150 } });
      const sent = b.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.headers['x-api-key']).toBeUndefined();
      expect(jup.transport.keyed).toBe(false);
      expect(jup.transport.tier).toBe('keyless');
    });

    it('sends the key when the keyed origin names it (path and trailing slash do not matter)', async () => {
      const before = b.requests.length;
      const jup = createJupiterClient({ baseUrl: b.url, apiKey: KEY, keyedBaseUrl: `${b.url}/`, tier: 'off', retry: fast });
      await jup.price.getPrices({ ids: [SOL] });
      expect(b.requests.slice(before).map((r) => r.headers['x-api-key'])).toEqual([KEY]);
      expect(jup.transport.keyed).toBe(true);
    });
  });
});
