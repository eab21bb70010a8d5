import { describe, expect, it } from 'vitest';
import { against, hasStackTrace, runCli, serve } from './runCli.js';
import { PRICES, SOL, WALLET } from './fixtures.js';

const KEY = 'jup_TESTKEY_abc123';

describe.concurrent('errors and secrets', () => {
  describe('when the service refuses the API key', () => {
    it('exits 1 with the error and its code, and never prints the key even when the body echoes it', async ({ onTestFinished }) => {
      const { server } = await serve(onTestFinished);
      server.on('GET', '/ultra/v1/holdings/:address', { status: 401, body: { error: `Invalid API key: ${KEY}`, code: 401 } });
      const run = await runCli(['holdings', WALLET, '--json', ...against(server.url)], { JUPITER_API_KEY: KEY });
      expect(server.requestsTo(`/ultra/v1/holdings/${WALLET}`)[0]!.headers['x-api-key']).toBe(KEY);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^error: ultra\.holdings: HTTP 401 unauthorized.*\(JUP_HTTP_401\)$/m);
      expect(run.stderr).toContain('[redacted]');
      expect(run.stderr).toMatch(/^hint: check the API key/m);
      expect(hasStackTrace(run.stderr)).toBe(false);
      expect(run.stdout).not.toContain(KEY);
      expect(run.stderr).not.toContain(KEY);
    });
  });

  describe('when the body breaks the schema with a key set and debug output on', () => {
    it('names the endpoint and the field and still never prints the key', async ({ onTestFinished }) => {
      const { server } = await serve(onTestFinished);
      server.on('GET', '/price/v3', { body: { [SOL]: { ...PRICES[SOL], usdPrice: KEY } } });
      const run = await runCli(['price', 'SOL', '--json', ...against(server.url)], { JUPITER_API_KEY: KEY, JUPKEEPER_DEBUG: '1' });
      expect(server.requestsTo('/price/v3')[0]!.headers['x-api-key']).toBe(KEY);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/error: price\.get: response does not match the schema: .*usdPrice/);
      expect(run.stdout).not.toContain(KEY);
      expect(run.stderr).not.toContain(KEY);
    });
  });

  describe('when the command line is wrong', () => {
    it('exits 2 for an unknown symbol, saying it is neither a symbol nor an address, without a request', async ({ onTestFinished }) => {
      const { server } = await serve(onTestFinished);
      const run = await runCli(['price', 'SOL', 'NOTATOKEN', ...against(server.url)]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('"NOTATOKEN" is neither a known token symbol');
      expect(hasStackTrace(run.stderr)).toBe(false);
      expect(server.requests).toHaveLength(0);
    });

    it('exits 2 for an unknown option value such as a bad --tier', async ({ onTestFinished }) => {
      const { server } = await serve(onTestFinished);
      const run = await runCli(['price', 'SOL', ...against(server.url), '--tier', 'gold']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--tier.*gold/);
      expect(server.requests).toHaveLength(0);
    });
  });
});
