import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Keypair, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { buildTransaction, BuildRefusal } from '../../src/execution/build.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import type { Intent } from '../../src/sdk/intents.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';

const BASE = '/prediction/v1';
const POSITION = 'iREhDiDWmM8vStQFkQ75AywTfRZUqbPEZytUTWJzxh5e';
const ORDER = 'Yp1GK1k6ZVZVUZeye3Vp9s6c76H93Br6LDBHsTdo35An';

// The prediction builders against a fixture service: the live POST /orders takes no price limit
// (jupiter-api.md §13 item 13), so the builder holds the limit the build reports to the intent's.
describe('the prediction builders', () => {
  let server: FixtureServer;
  const wallet = HotWallet.generate();
  const owner = wallet.address;
  const tx = Buffer.from(
    new VersionedTransaction(new TransactionMessage({ payerKey: wallet.publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58(), instructions: [] }).compileToV0Message()).serialize(),
  ).toString('base64');

  /** A CreateOrderResponse whose order reports the given limits (micro-USD strings, or null). */
  const build = (isBuy: boolean, limits: { maxBuyPriceUsd: string | null; minSellPriceUsd: string | null }) => ({
    transaction: tx,
    txMeta: { blockhash: 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi', lastValidBlockHeight: 279132640 },
    externalOrderId: 'ext-1',
    requiredSigners: [owner],
    execution: { endpoint: '/api/v1/execute', context: { type: 'create_order', orderPubkey: ORDER } },
    order: {
      orderPubkey: ORDER, userPubkey: owner, marketId: 'POLY-1345531-YES', positionPubkey: POSITION, isBuy, isYes: true,
      contracts: '14', newContracts: '14', ...limits, orderCostUsd: '9850000', newAvgPriceUsd: '689655', newSizeUsd: '9850000',
      newPayoutUsd: '14285714', estimatedProtocolFeeUsd: '0', estimatedVenueFeeUsd: '150000', estimatedTotalFeeUsd: '150000',
    },
  });

  const run = (intent: Intent) => {
    const jup = createJupiterClient({ baseUrl: server.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    return buildTransaction(intent, { jup, rpc: new SolanaRpc(`${server.url}/rpc`), wallet, intentId: 't.prediction', maxSlippageBps: 300, usdPrice: () => undefined });
  };
  const buy: Intent = { kind: 'prediction.buy', marketId: 'POLY-1345531-YES', side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 700_000n };

  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('sends the live body, without a price, and builds an order whose reported limit is within the intent\'s', async () => {
    server.on('POST', `${BASE}/orders`, { body: build(true, { maxBuyPriceUsd: '700000', minSellPriceUsd: null }) });
    const built = await run(buy);
    expect(built.lastValidBlockHeight).toBe(279132640n);
    expect(server.requestsTo(`${BASE}/orders`, 'POST')[0]!.body).toEqual({ isBuy: true, ownerPubkey: owner, marketId: 'POLY-1345531-YES', isYes: true, depositAmount: '10000000', depositMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' });
  });

  it.each([
    ['a buy limit above the intent\'s', true, { maxBuyPriceUsd: '700001', minSellPriceUsd: null }, 'rejected', 'PREDICTION_PRICE_LIMIT'],
    ['no buy limit at all', true, { maxBuyPriceUsd: null, minSellPriceUsd: null }, 'failed', 'PREDICTION_NO_LIMIT'],
  ] as const)('refuses a buy whose build reports %s', async (_what, isBuy, limits, state, code) => {
    server.on('POST', `${BASE}/orders`, { body: build(isBuy, limits) });
    const err = await run(buy).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BuildRefusal);
    expect(err).toMatchObject({ state, code });
  });

  it('refuses a sell whose reported floor is below the intent\'s, and sends no price for it either', async () => {
    server.on('GET', `${BASE}/positions/:positionPubkey`, { body: position(owner) });
    server.on('POST', `${BASE}/orders`, { body: build(false, { maxBuyPriceUsd: null, minSellPriceUsd: '599999' }) });
    const err = await run({ kind: 'prediction.sell', positionPubkey: POSITION, contractsMicro: 5_000_000n, minPriceMicroUsd: 600_000n }).catch((e: unknown) => e);
    expect(err).toMatchObject({ state: 'rejected', code: 'PREDICTION_PRICE_LIMIT' });
    expect(server.requestsTo(`${BASE}/orders`, 'POST')[0]!.body).toEqual({ isBuy: false, ownerPubkey: owner, positionPubkey: POSITION, isYes: true, contractsMicro: '5000000' });
  });
});

/** An open position as GET /positions/{pubkey} returns it. */
function position(owner: string) {
  return {
    pubkey: POSITION, owner, ownerPubkey: owner, market: 'tVY7bqm381rVnjvC4R8HUn9neAhXn8VsKRPacZTqV5Gp', marketId: 'POLY-1345531-YES', marketIdHash: '8f2c',
    isYes: true, contracts: '14', contractsMicro: '14285714', contractsDecimal: '14.285714', source: 'program', maxSlippageBps: 250,
    totalCostUsd: '9850000', sizeUsd: '9850000', valueUsd: '8857142', avgPriceUsd: '689655', markPriceUsd: '620000', sellPriceUsd: '620000',
    pnlUsd: '-992858', pnlUsdPercent: -10.08, pnlUsdAfterFees: '-1142858', pnlUsdAfterFeesPercent: -11.6, openOrders: 0, feesPaidUsd: '150000',
    realizedPnlUsd: -250000, claimed: false, claimedUsd: '0', openedAt: 1767300060, updatedAt: 1767300060, claimableAt: null, payoutUsd: '14285714',
    bump: 253, eventId: 'POLY-351731', settlementDate: null, claimable: false,
  };
}
