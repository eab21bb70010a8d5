import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { BadRequestError, ExecuteError } from '../../src/jupiter/errors.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { fundedWallet, JUP, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

// What a client notices when it asks the simulated Trigger API for something wrong: the service's error shape
// `{error, code, cause?}`, the documented messages, execute's failure body with the signature, and pagination.
describe('the trigger API refusing bad requests', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  /** A raw request, for bodies the project's client refuses to send. */
  async function raw(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${sim.url}/trigger/v1${path}`, { method, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const order = (maker: Keypair, making: bigint, extra: Record<string, unknown> = {}) => ({ inputMint: USDC, outputMint: SOL, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: making.toString(), takingAmount: '1000000', ...extra } });

  it('refuses an order under 5 USD with the documented cause, through the client', async () => {
    const maker = Keypair.generate();
    const err = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 2_000_000n, takingAmount: 1_000_000n } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).body).toEqual({ error: 'invalid create order request', cause: 'input mint making amount must be at least 5 USD, received: 2', code: 400 });
  });

  it('refuses malformed and impossible orders with 400 and a cause, and never crashes on bad JSON', async () => {
    const maker = Keypair.generate();
    const cases: Array<[unknown, RegExp]> = [
      [{ ...order(maker, 10_000_000n), outputMint: USDC }, /must be different/],
      [{ ...order(maker, 10_000_000n), inputMint: Keypair.generate().publicKey.toBase58() }, /input mint is not tradable/],
      [order(maker, 10_000_000n, { expiredAt: '1000' }), /expiredAt must be in the future/],
      [order(maker, 10_000_000n, { feeBps: '50' }), /feeBps requires feeAccount/],
      [{ ...order(maker, 10_000_000n), feeAccount: Keypair.generate().publicKey.toBase58() }, /feeAccount must be a token account of the output mint/],
      [{ ...order(maker, 10_000_000n), maker: 'not-a-key' }, /maker/],
      [{ ...order(maker, 10_000_000n), params: { takingAmount: '1' } }, /params\.makingAmount/],
      [order(maker, 10_000_000n, { slippageBps: '10001' }), /slippageBps/],
      ['{not json', /body/],
    ];
    for (const [body, cause] of cases) {
      const r = await raw('POST', '/createOrder', body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid create order request', code: 400 });
      expect(r.body.cause).toMatch(cause);
    }
  });

  it('answers cancels of unknown or foreign orders with the documented errors', async () => {
    const maker = await fundedWallet(sim, 100_000_000n, [[USDC, 10_000_000n]]);
    const created = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 10_000_000n, takingAmount: 1_000_000_000n } });
    await jup.trigger.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, maker) });
    const stranger = Keypair.generate().publicKey.toBase58();
    expect(await raw('POST', '/cancelOrder', { maker: stranger, order: created.order })).toEqual({ status: 400, body: { error: 'no matching orders found', code: 400 } });
    expect(await raw('POST', '/cancelOrder', { maker: 'nope', order: created.order })).toEqual({ status: 400, body: { error: 'invalid maker pubkey', code: 400 } });
    expect(await raw('POST', '/cancelOrders', { maker: stranger })).toEqual({ status: 400, body: { error: 'no matching orders found', code: 400 } });
    const err = await jup.trigger.cancelOrder({ maker: maker.publicKey.toBase58(), order: stranger }).catch((e: unknown) => e);
    expect((err as BadRequestError).body).toEqual({ error: 'no matching orders found', code: 400 });
  });

  it('executes only the transactions it built, signed, once; a failed landing comes back with its signature', async () => {
    const maker = await fundedWallet(sim, 100_000_000n, [[USDC, 10_000_000n]]);
    // More than the wallet holds: the transaction lands and fails on the token transfer (SPL Token error 1).
    const created = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 20_000_000n, takingAmount: 1_000_000_000n } });
    const other = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 6_000_000n, takingAmount: 1_000_000_000n } });
    const signed = signBase64(created.transaction, maker);
    expect(await raw('POST', '/execute', { requestId: '00000000-0000-7000-8000-000000000000', signedTransaction: signed })).toMatchObject({ status: 400, body: { code: 400, status: 'Failed' } });
    expect(await raw('POST', '/execute', { requestId: created.requestId, signedTransaction: 'AAAA' })).toEqual({ status: 400, body: { error: 'invalid transaction', code: 400, status: 'Failed' } });
    expect(await raw('POST', '/execute', { requestId: created.requestId, signedTransaction: signBase64(other.transaction, maker) })).toMatchObject({ status: 400, body: { error: 'invalid transaction', cause: expect.stringMatching(/not one this request built/) } });
    expect(await raw('POST', '/execute', { requestId: created.requestId, signedTransaction: created.transaction })).toMatchObject({ status: 400, body: { error: 'invalid transaction', cause: expect.stringMatching(/not signed/) } });
    expect(await raw('POST', '/execute', { requestId: created.requestId })).toMatchObject({ status: 400, body: { error: 'invalid execute request', code: 400 } });

    const err = await jup.trigger.execute({ requestId: created.requestId, signedTransaction: signed }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecuteError);
    expect((err as ExecuteError).signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect((err as ExecuteError).details.serviceError).toBe('custom program error code: 1');
    // The same bytes again: the same answer, nothing settled twice.
    expect(await raw('POST', '/execute', { requestId: created.requestId, signedTransaction: signed })).toEqual({ status: 500, body: { error: 'custom program error code: 1', code: 500, signature: (err as ExecuteError).signature, status: 'Failed' } });
    expect((await jup.trigger.getOrders({ user: maker.publicKey.toBase58(), orderStatus: 'active' })).orders).toEqual([]);

    const ok = await jup.trigger.execute({ requestId: other.requestId, signedTransaction: signBase64(other.transaction, maker) });
    expect(await jup.trigger.execute({ requestId: other.requestId, signedTransaction: signBase64(other.transaction, maker) })).toEqual(ok);
  });

  it('pages 10 orders at a time, filters by mint, and refuses a query without orderStatus', async () => {
    const maker = await fundedWallet(sim, 2_000_000_000n, [[USDC, 120_000_000n]]);
    for (let i = 0; i < 12; i += 1) {
      const output = i < 9 ? SOL : JUP;
      const created = await jup.trigger.createOrder({ inputMint: USDC, outputMint: output, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 10_000_000n, takingAmount: 1_000_000_000n } });
      await jup.trigger.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, maker) });
    }
    const user = maker.publicKey.toBase58();
    const first = await raw('GET', `/getTriggerOrders?user=${user}&orderStatus=active`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ user, orderStatus: 'active', totalPages: 2, page: 1 });
    expect(first.body.orders).toHaveLength(10);
    const second = await jup.trigger.getOrders({ user, orderStatus: 'active', page: 2 });
    expect([second.orders.length, second.page, second.totalPages, second.hasMore]).toEqual([2, 2, 2, false]);
    expect((await jup.trigger.getOrders({ user, orderStatus: 'active', outputMint: JUP })).orders).toHaveLength(3);
    expect((await jup.trigger.getOrders({ user, orderStatus: 'history' }))).toMatchObject({ orders: [], totalPages: 0, page: 1 });
    expect(await raw('GET', `/getTriggerOrders?user=${user}`)).toMatchObject({ status: 400, body: { error: 'invalid get trigger orders request', code: 400, cause: expect.stringMatching(/orderStatus/) } });
    expect(await raw('GET', `/getTriggerOrders?user=nope&orderStatus=active`)).toMatchObject({ status: 400, body: { code: 400, cause: expect.stringMatching(/user/) } });
  });
});
