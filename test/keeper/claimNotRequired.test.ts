// A claim the venue answers "no claim required" (a market that pays out by itself) ends done, not failed; one it
// answers "market not settled yet" fails. The simulator never answers the first (its markets all need a claim), so
// a fixture server stands in for such a venue; the executor, its builder and the Redis ledger are the keeper's own.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEPER_INSTANCE } from '../../src/engine/keeperPorts.js';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor } from '../../src/execution/executor.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import { IntentStore } from '../../src/store/intents.js';
import { clearNamespace } from '../../src/store/redis.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';

const POSITION = 'iREhDiDWmM8vStQFkQ75AywTfRZUqbPEZytUTWJzxh5e';

describe('a claim the venue does not need', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
  const prefix = `keeper-noclaim-${randomUUID().slice(0, 6)}`;
  let server: FixtureServer;
  let executor: Executor;
  const store = new IntentStore(redis, prefix);
  beforeAll(async () => {
    server = await startFixtureServer();
    const jup = createJupiterClient({ baseUrl: server.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const rpc = new SolanaRpc(`${server.url}/rpc`);
    const wallet = HotWallet.generate();
    executor = new Executor({
      store,
      jup,
      rpc,
      wallet,
      killSwitch: () => Promise.resolve(null),
      logger: silentLogger,
      maxAttempts: 2,
      build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc, wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, signal }),
      guard: () => Promise.reject(new Error('nothing is built, so nothing is guarded')),
    });
  });
  afterAll(async () => {
    await server.close();
    await clearNamespace(redis, prefix);
    redis.disconnect();
  });
  const claim = async () => {
    const id = `${KEEPER_INSTANCE}.prediction.claim.${randomUUID().slice(0, 8)}`;
    await store.create({ id, instance: KEEPER_INSTANCE, strategy: 'keeper@1', intent: { kind: 'prediction.claim', positionPubkey: POSITION }, createdAt: Date.now(), deadline: Date.now() + 60_000 });
    return { id, result: await executor.execute(id), rec: (await store.get(id))! };
  };

  it('ends landed with nothing signed when the venue says no claim is required', async () => {
    server.on('POST', `/prediction/v1/positions/:positionPubkey/claim`, { status: 400, body: { type: 'invalid_request_error', message: 'No claim required: this market settles automatically', request_id: 'r' } });
    const { result, rec } = await claim();
    expect(result).toEqual({ state: 'landed' });
    expect(rec).toMatchObject({ state: 'landed', error: null, signature: null, signatures: [], signedTx: null, result: { alreadyDone: { code: 'JUP_PREDICTION_NO_CLAIM_REQUIRED' } } });
  });

  it('fails when the market has not settled yet', async () => {
    server.on('POST', `/prediction/v1/positions/:positionPubkey/claim`, { status: 400, body: { type: 'invalid_request_error', message: 'Market not settled yet', request_id: 'r' } });
    const { result, rec } = await claim();
    expect(result).toEqual({ state: 'failed' });
    expect(rec).toMatchObject({ state: 'failed', error: { code: 'JUP_PREDICTION_MARKET_NOT_SETTLED' }, signature: null });
  });
});
