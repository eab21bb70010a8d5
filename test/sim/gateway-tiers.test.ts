import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { ForbiddenError } from '../../src/jupiter/errors.js';
import { ultraAddedQuota } from '../../src/sim/http/gateway.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { runCli } from '../cli/runCli.js';
import { control, fundedWallet, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

const fast = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 };
const BIN = fileURLToPath(new URL('../../bin/jup-keeper.js', import.meta.url));

/** Starts `jup-keeper sim` as users run it and resolves with its Jupiter API origin once it listens. */
async function startCliSim(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, 'sim', '--port', '0', '--clock-speed', '0', ...args], { cwd: tmpdir(), env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /jupiter api: (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`jup-keeper sim exited with ${code}: ${out}`)));
  });
  return { url: await listening, child };
}

/** Requests `path` until the gateway answers 429 (at most `cap` times); returns the last 200 and the 429. */
async function burst(url: string, key: string, cap = 400): Promise<{ lastOk: Response; limited: Response }> {
  let lastOk: Response | undefined;
  for (let i = 0; i < cap; i += 1) {
    const res = await fetch(url, { headers: { 'x-api-key': key } });
    if (res.status === 429) return { lastOk: lastOk!, limited: res };
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    lastOk = res;
  }
  throw new Error(`no 429 after ${cap} requests`);
}

describe('the gateway tiers', () => {
  describe('from `jup-keeper sim --tier free --api-key KEY:TIER`', () => {
    let sim: { url: string; child: ChildProcess };
    beforeAll(async () => {
      sim = await startCliSim(['--tier', 'free', '--api-key', 'jup_free_key', 'jup_pro_key:pro', 'jup_ultra_key:ultra']);
    });
    afterAll(async () => {
      const exited = once(sim.child, 'exit');
      sim.child.kill('SIGTERM');
      await exited;
    });

    it('refuses the curated content to a free key (403, the documented body) and serves it to a pro key', async () => {
      const free = createJupiterClient({ baseUrl: sim.url, apiKey: 'jup_free_key', tier: 'off', retry: fast });
      const err = await free.tokens.getCookingContent().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForbiddenError);
      expect((err as ForbiddenError).body).toEqual({ code: 403, message: 'API key does not have access to this endpoint' });
      await expect(free.tokens.getContent({ mints: [SOL] })).rejects.toBeInstanceOf(ForbiddenError);
      // Other token data stays open to the free key.
      expect((await free.tokens.searchTokens({ query: 'USDC' })).length).toBeGreaterThan(0);

      const pro = createJupiterClient({ baseUrl: sim.url, apiKey: 'jup_pro_key', tier: 'off', retry: fast });
      expect((await pro.tokens.getCookingContent()).data.length).toBeGreaterThan(0);
      expect((await pro.tokens.getContent({ mints: [SOL] })).data.length).toBeGreaterThan(0);
    });

    it('refuses content to an ultra key and to a keyless caller, and announces the ultra swap limit', async () => {
      const ultra = createJupiterClient({ baseUrl: sim.url, apiKey: 'jup_ultra_key', tier: 'off', retry: fast });
      await expect(ultra.tokens.getCookingContent()).rejects.toBeInstanceOf(ForbiddenError);
      const keyless = await fetch(`${sim.url}/tokens/v2/content/cooking`);
      expect(keyless.status).toBe(403);
      const order = await fetch(`${sim.url}/ultra/v1/order?inputMint=${SOL}&outputMint=${USDC}&amount=1000000`, { headers: { 'x-api-key': 'jup_ultra_key' } });
      expect(order.status).toBe(200);
      expect(order.headers.get('x-ratelimit-limit')).toBe('50');
    });

    it('refuses an unknown tier on the command line', { timeout: 120_000 }, async () => {
      const run = await runCli(['sim', '--port', '0', '--api-key', 'jup_x:platinum']);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('unknown tier "platinum"');
    });
  });

  describe('under the ultra tier', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startTestSim({ tier: 'free', apiKeys: ['jup_fresh:ultra', 'jup_trader:ultra'] });
    });
    afterAll(async () => sim.close());

    it('follows the documented quota table', () => {
      expect([0, 9_999, 10_000, 100_000, 1_000_000].map(ultraAddedQuota)).toEqual([0, 0, 1, 11, 115]);
    });

    it('allows 50 swap requests per 10 s to a key without volume, and more once its executed volume is counted', async () => {
      const quoteUrl = `${sim.url}/ultra/v1/order?inputMint=${SOL}&outputMint=${USDC}&amount=1000000`;
      const fresh = await burst(quoteUrl, 'jup_fresh');
      expect(fresh.lastOk.headers.get('x-ratelimit-limit')).toBe('50');
      expect(fresh.lastOk.headers.get('x-ratelimit-current')).toBe('50');
      expect(fresh.limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(await fresh.limited.json()).toEqual({ code: 429, message: '[API Gateway] Too many requests' });
      // The ultra key's other requests are on its fixed plan, apart from the swap interface's window.
      const price = await fetch(`${sim.url}/price/v3?ids=${SOL}`, { headers: { 'x-api-key': 'jup_fresh' } });
      expect(price.status).toBe(200);
      expect(price.headers.get('x-ratelimit-limit')).toBeNull();

      // 150,000 USD executed through Ultra with the trader's key.
      const jup = createJupiterClient({ baseUrl: sim.url, apiKey: 'jup_trader', tier: 'off', retry: fast });
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 150_000_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 150_000_000_000n, taker: wallet.publicKey.toBase58() });
      expect((await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId })).status).toBe('Success');
      const before = await fetch(quoteUrl, { headers: { 'x-api-key': 'jup_trader' } });
      expect(before.headers.get('x-ratelimit-limit')).toBe('50');

      // The added quota is recomputed every 10 minutes over the rolling day.
      await control(sim, '/clock', { advanceMs: 600_000 });
      const grown = await burst(quoteUrl, 'jup_trader');
      // 150,000 USD lies between the documented 100,000 (+11) and 1,000,000 (+115): +16.
      const limit = 66;
      expect(grown.lastOk.headers.get('x-ratelimit-limit')).toBe(String(limit));
      expect(grown.lastOk.headers.get('x-ratelimit-current')).toBe(String(limit));
      expect(grown.limited.headers.get('x-ratelimit-limit')).toBe(String(limit));

      // A day later the volume has left the rolling window.
      await control(sim, '/clock', { advanceMs: 86_400_000 });
      const expired = await fetch(`${sim.url}/ultra/v1/shield?mints=${SOL}`, { headers: { 'x-api-key': 'jup_trader' } });
      expect(expired.headers.get('x-ratelimit-limit')).toBe('50');
    });
  });
});
