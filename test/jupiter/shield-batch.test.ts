import { Keypair } from '@solana/web3.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Feeds } from '../../src/execution/feeds.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { SHIELD_MINTS_PER_REQUEST } from '../../src/jupiter/ultra/getShield.js';
import { silentLogger } from '../../src/lib/logger.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { clearNamespace } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { startFixtureServer, type FixtureServer, type RecordedRequest } from '../helpers/fixtureServer.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** The comma-separated mints of a request's query parameter. */
const listed = (r: RecordedRequest, param: string): string[] => (r.query.get(param) ?? '').split(',').filter(Boolean);

describe('shield warnings for many watched mints', () => {
  let server: FixtureServer;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `test-shield-${process.pid}`;
  // 1,001 watched mints (plus SOL, which the market feed always adds).
  const mints = [USDC, ...Array.from({ length: 1_000 }, () => Keypair.generate().publicKey.toBase58())];

  beforeAll(async () => {
    // A plain Node HTTP server: like many fronts, it answers 431 to a request line over 16 KB.
    server = await startFixtureServer();
    server.on('GET', '/price/v3', (r) => ({ body: Object.fromEntries(listed(r, 'ids').map((m) => [m, { usdPrice: 1, decimals: 6 }])) }));
    server.on('GET', '/ultra/v1/shield', (r) => ({ body: { warnings: Object.fromEntries(listed(r, 'mints').map((m) => [m, m === USDC ? [{ type: 'HAS_FREEZE_AUTHORITY', severity: 'warning' }] : []])) } }));
    server.on('GET', '/tokens/v2/search', { body: [] });
  });
  afterAll(async () => {
    await server.close();
    await clearNamespace(redis, prefix);
    await redis.quit();
  });

  it('are fetched 50 mints per request and merged, and the market feed refreshes', async () => {
    const jup = createJupiterClient({ baseUrl: server.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const feeds = new Feeds({ jup, rpc: new SolanaRpc(`${server.url}/rpc`), snapshots: new SnapshotStore(redis, prefix), logger: silentLogger });

    const snapshot = await feeds.refreshMarket(mints);

    const shield = server.requestsTo('/ultra/v1/shield');
    expect(shield).toHaveLength(Math.ceil(1_002 / SHIELD_MINTS_PER_REQUEST));
    for (const r of shield) expect(listed(r, 'mints').length).toBeLessThanOrEqual(50);
    expect(new Set(shield.flatMap((r) => listed(r, 'mints')))).toEqual(new Set([SOL, ...mints]));
    expect(Object.keys(snapshot.prices)).toHaveLength(1_002);
    expect(snapshot.tokens[USDC]?.warnings).toEqual([{ type: 'HAS_FREEZE_AUTHORITY', severity: 'warning', message: '' }]);
  });

  it('in one request would have been refused with HTTP 431 (why they are batched)', async () => {
    const res = await fetch(`${server.url}/ultra/v1/shield?mints=${mints.join(',')}`);
    expect(res.status).toBe(431);
  });
});
