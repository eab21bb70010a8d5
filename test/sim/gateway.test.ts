import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, SystemProgram } from '@solana/web3.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { RateLimitError, SchemaError, ServerError, UnauthorizedError, NetworkError } from '../../src/jupiter/errors.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, ledger, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

const fast = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 };

describe('the simulated gateway', () => {
  describe('when started with API keys', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startTestSim({ apiKeys: ['jup_sim_good_key'], tier: 'pro' });
    });
    afterAll(async () => sim.close());

    it('accepts the key, answers 401 for another, and tags every response with a request id', async () => {
      const good = await fetch(`${sim.url}/swap/v1/quote?inputMint=${SOL}&outputMint=${USDC}&amount=1000000`, { headers: { 'x-api-key': 'jup_sim_good_key' } });
      expect(good.status).toBe(200);
      expect(good.headers.get('x-api-gateway-request-id')).toBeTruthy();
      expect(Number(good.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
      const bad = await fetch(`${sim.url}/swap/v1/quote?inputMint=${SOL}&outputMint=${USDC}&amount=1000000`, { headers: { 'x-api-key': 'jup_wrong' } });
      expect(bad.status).toBe(401);
      expect(await bad.json()).toEqual({ code: 401, message: 'Unauthorized' });
      expect(bad.headers.get('x-ratelimit-remaining')).toBeNull();
    });

    it('surfaces a bad key as UnauthorizedError through the client', async () => {
      const jup = createJupiterClient({ baseUrl: sim.url, apiKey: 'jup_wrong', tier: 'off', retry: fast });
      await expect(jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 1_000n })).rejects.toBeInstanceOf(UnauthorizedError);
    });
  });

  describe('with the free tier', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startTestSim({ tier: 'free' });
    });
    afterAll(async () => sim.close());

    it('allows 60 requests a minute, then answers 429 with rate-limit headers', async () => {
      const url = `${sim.url}/swap/v1/program-id-to-label`;
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 61; i += 1) {
        last = await fetch(url);
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
      expect(statuses[60]).toBe(429);
      expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(last!.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      expect(await last!.json()).toEqual({ code: 429, message: '[API Gateway] Too many requests' });
    });
  });

  describe('with faults injected', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startTestSim();
    });
    afterAll(async () => sim.close());

    it('answers a 429 storm, then recovers, and the client waits as the headers say', async () => {
      await control(sim, '/faults', { kind: 'rate-limit', count: 2, pathPrefix: '/price/v3', retryAfterSeconds: 0 });
      const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 20 } });
      const prices = await jup.price.getPrices({ ids: [USDC] });
      expect(prices[USDC]?.usdPrice).toBeGreaterThan(0.9);
      const once = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: fast });
      await control(sim, '/faults', { kind: 'rate-limit', count: 1, pathPrefix: '/price/v3', retryAfterSeconds: 2 });
      const err = await once.price.getPrices({ ids: [USDC] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RateLimitError);
      expect((err as RateLimitError).retryAfterMs).toBeGreaterThan(500);
    });

    it('answers 5xx bursts', async () => {
      await control(sim, '/faults', { kind: 'server-error', count: 1, status: 502 });
      const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: fast });
      const err = await jup.price.getPrices({ ids: [USDC] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect((err as ServerError).status).toBe(502);
    });

    it('sends malformed and schema-breaking JSON that the client refuses', async () => {
      const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: fast });
      await control(sim, '/faults', { kind: 'malformed-json', count: 1 });
      const malformed = await jup.price.getPrices({ ids: [USDC] }).catch((e: unknown) => e);
      expect(malformed).toBeInstanceOf(SchemaError);
      await control(sim, '/faults', { kind: 'schema-break', count: 1, pathPrefix: '/ultra/v1/order' });
      const broken = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 1_000_000n }).catch((e: unknown) => e);
      expect(broken).toBeInstanceOf(SchemaError);
      expect((broken as SchemaError).message).toContain('requestId');
    });

    it('adds latency', async () => {
      await control(sim, '/faults', { kind: 'latency', count: 1, latencyMs: 300 });
      const started = Date.now();
      await fetch(`${sim.url}/swap/v1/program-id-to-label`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    });

    it('settles an execute whose response is then lost', async () => {
      const wallet = await fundedWallet(sim);
      const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: fast });
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, taker: wallet.publicKey.toBase58() });
      const signed = signBase64(order.transaction!, wallet);
      await control(sim, '/faults', { kind: 'lose-execute-response', count: 1 });
      const lost = await jup.ultra.executeOrder({ signedTransaction: signed, requestId: order.requestId }).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(NetworkError);
      expect((await ledger(sim)).filter((t) => t.requestId === order.requestId)).toHaveLength(1);
      const again = await jup.ultra.executeOrder({ signedTransaction: signed, requestId: order.requestId });
      expect(again.status).toBe('Success');
      expect((await ledger(sim)).filter((t) => t.requestId === order.requestId)).toHaveLength(1);
    });

    it('settles a transaction sent through RPC whose answer is then lost, for the faulted wallet only', async () => {
      const rpc = new SolanaRpc(`${sim.url}/rpc`);
      const [faulted, other] = [await fundedWallet(sim), await fundedWallet(sim)];
      const transfer = (from: Keypair) => {
        const { tx } = sim.ctx.state.venue.chain.buildTransaction(from.publicKey, [SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5_000_000 })]);
        tx.sign([from]);
        return tx;
      };
      await control(sim, '/faults', { kind: 'lose-send-response', count: 1, wallet: faulted.publicKey.toBase58() });
      // Another wallet's send is answered while the fault waits for its own.
      const otherTx = transfer(other);
      expect(await rpc.send(otherTx.serialize())).toBe(bs58.encode(otherTx.signatures[0]!));
      expect((await control<{ faults: Array<{ hits: number }> }>(sim, '/faults', undefined, 'GET')).faults).toEqual([expect.objectContaining({ hits: 0 })]);

      const tx = transfer(faulted);
      const signature = bs58.encode(tx.signatures[0]!);
      const before = (await balances(sim, faulted)).lamports;
      await expect(rpc.send(tx.serialize())).rejects.toThrow();
      // It settled although no answer came: the status says so, and the lamports left once.
      expect((await rpc.status(signature)).value).toMatchObject({ err: null, confirmationStatus: expect.stringMatching(/confirmed|finalized/) });
      const after = (await balances(sim, faulted)).lamports;
      expect(before - after).toBeGreaterThanOrEqual(5_000_000n);
      // The same bytes again are answered with their signature and move nothing more.
      expect(await rpc.send(tx.serialize())).toBe(signature);
      expect((await balances(sim, faulted)).lamports).toBe(after);
      expect((await control<{ faults: unknown[] }>(sim, '/faults', undefined, 'GET')).faults).toEqual([]);
    });

    it('loses only the faulted wallet\'s execute answer', async () => {
      const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: fast });
      const [faulted, other] = [await fundedWallet(sim), await fundedWallet(sim)];
      const signedOrder = async (w: Keypair) => {
        const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, taker: w.publicKey.toBase58() });
        return { signedTransaction: signBase64(order.transaction!, w), requestId: order.requestId };
      };
      await control(sim, '/faults', { kind: 'lose-execute-response', count: 1, wallet: faulted.publicKey.toBase58() });
      expect((await jup.ultra.executeOrder(await signedOrder(other))).status).toBe('Success');
      const lost = await jup.ultra.executeOrder(await signedOrder(faulted)).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(NetworkError);
      expect((await control<{ faults: unknown[] }>(sim, '/faults', undefined, 'GET')).faults).toEqual([]);
    });

    it('lists and clears faults', async () => {
      await control(sim, '/faults', { kind: 'latency', latencyMs: 1 });
      expect((await control<{ faults: unknown[] }>(sim, '/faults', undefined, 'GET')).faults.length).toBeGreaterThan(0);
      await control(sim, '/faults', undefined, 'DELETE');
      expect((await control<{ faults: unknown[] }>(sim, '/faults', undefined, 'GET')).faults).toEqual([]);
    });
  });

  describe('when given bad input', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startTestSim();
    });
    afterAll(async () => sim.close());

    const cases: Array<[string, string, string | undefined]> = [
      ['GET', `/ultra/v1/order?inputMint=${SOL}&outputMint=${USDC}`, undefined],
      ['GET', `/ultra/v1/order?inputMint=${SOL}&outputMint=${USDC}&amount=abc`, undefined],
      ['GET', `/ultra/v1/order?inputMint=${SOL}&outputMint=${USDC}&amount=-5`, undefined],
      ['GET', `/ultra/v1/order?inputMint=${SOL}&outputMint=${USDC}&amount=99999999999999999999999`, undefined],
      ['GET', `/ultra/v1/order?inputMint=notamint&outputMint=${USDC}&amount=1000`, undefined],
      ['GET', `/ultra/v1/order?inputMint=${SOL}&outputMint=${USDC}&amount=1000&taker=xyz`, undefined],
      ['GET', `/ultra/v1/order?inputMint=${SOL}&outputMint=${USDC}&amount=1000&referralFee=20`, undefined],
      ['GET', `/ultra/v1/order?inputMint=${SOL}&outputMint=${SOL}&amount=1000`, undefined],
      ['GET', `/ultra/v1/order?inputMint=${SOL}&outputMint=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB1&amount=1000`, undefined],
      ['POST', '/ultra/v1/execute', '{not json'],
      ['POST', '/ultra/v1/execute', JSON.stringify({ signedTransaction: 12, requestId: ['x'] })],
      ['POST', '/ultra/v1/execute', JSON.stringify({ signedTransaction: '@@@', requestId: 'r' })],
      ['GET', `/swap/v1/quote?inputMint=${SOL}&outputMint=${USDC}&amount=1000&slippageBps=20000`, undefined],
      ['GET', `/swap/v1/quote?inputMint=${SOL}&outputMint=${USDC}&amount=1000&maxAccounts=65`, undefined],
      ['GET', `/swap/v1/quote?inputMint=${SOL}&outputMint=${USDC}&amount=1000&swapMode=Sideways`, undefined],
      ['POST', '/swap/v1/swap', JSON.stringify({ userPublicKey: 'nope', quoteResponse: {} })],
      ['POST', '/swap/v1/swap', '[]'],
      ['POST', '/swap/v1/swap-instructions', JSON.stringify({ quoteResponse: { inputMint: 5 } })],
    ];

    it('answers each with 400 and a body of the service shape, and keeps serving', async () => {
      for (const [method, path, body] of cases) {
        const res = await fetch(`${sim.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body });
        const json = (await res.json()) as Record<string, unknown>;
        expect.soft(res.status, `${method} ${path}`).toBe(400);
        expect.soft(typeof json.error, `${method} ${path} error field`).toBe('string');
      }
      const ok = await fetch(`${sim.url}/swap/v1/quote?inputMint=${SOL}&outputMint=${USDC}&amount=1000000`);
      expect(ok.status).toBe(200);
    });

    it('answers 404 with an error body for an unknown path', async () => {
      const res = await fetch(`${sim.url}/ultra/v9/nothing`);
      expect(res.status).toBe(404);
      expect(await res.json()).toHaveProperty('error');
    });
  });
});
