import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VersionedTransaction, type Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { MarketNotSettledError } from '../../src/jupiter/prediction/errors.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, ledger, signBase64, startTestSim, USDC } from '../helpers/sim.js';

// The prediction API on the simulator, through the project's own client over HTTP, with real signed transactions
// sent through the venue's RPC. The clock is frozen: prices move only when a test moves them, and the keeper fills
// when told to (POST /__sim/orders/fill).
describe('prediction markets on the simulator', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 0 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
  });
  afterAll(async () => {
    await sim.close();
  });

  const usdc = async (w: Keypair) => (await balances(sim, w)).tokens[USDC] ?? 0n;
  /** Signs a built transaction and sends it through the venue's RPC; waits for its status. */
  async function send(transaction: string, signer: Keypair): Promise<string> {
    const bytes = Buffer.from(signBase64(transaction, signer), 'base64');
    const signature = await rpc.send(bytes);
    const { value } = await rpc.status(signature);
    expect(value).not.toBeNull();
    expect(value!.err).toBeNull();
    return signature;
  }
  /** An open market quoted on both sides. */
  async function tradableMarket(): Promise<Market> {
    const page = await jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const m = page.data.flatMap((e) => e.markets).find((x) => x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyNoPriceUsd !== null);
    expect(m).toBeDefined();
    return m!;
  }

  it('buys YES, fills, resolves YES and claims exactly $1 a contract; NO on the same market pays nothing', async () => {
    const m = await tradableMarket();
    const yes = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
    const no = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
    const buyYes = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: yes.publicKey.toBase58(), marketId: m.marketId, isYes: true, depositAmount: 20_000_000n });
    const buyNo = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: no.publicKey.toBase58(), marketId: m.marketId, isYes: false, depositAmount: 10_000_000n });
    expect(buyYes.order.maxBuyPriceUsd).not.toBeNull();
    await send(buyYes.transaction, yes);
    await send(buyNo.transaction, no);
    expect(await usdc(yes)).toBe(30_000_000n);

    const filled = await control<{ filled: number; keeperError: string | null }>(sim, '/orders/fill', {});
    expect(filled.keeperError).toBeNull();
    expect(filled.filled).toBeGreaterThanOrEqual(2);
    const [pos] = (await jup.prediction.getPredictionPositions({ ownerPubkey: yes.publicKey.toBase58() })).data;
    expect(pos!.contractsMicro).toBeGreaterThan(0n);

    await expect(jup.prediction.claimPredictionPosition({ positionPubkey: pos!.pubkey, ownerPubkey: yes.publicKey.toBase58() })).rejects.toBeInstanceOf(MarketNotSettledError);
    await control(sim, '/prediction/resolve', { marketId: m.marketId, result: 'yes' });

    const before = await usdc(yes);
    const claim = await jup.prediction.claimPredictionPosition({ positionPubkey: pos!.pubkey, ownerPubkey: yes.publicKey.toBase58() });
    expect(claim.position.payoutAmountUsd).toBe(pos!.contractsMicro);
    await send(claim.transaction, yes);
    expect((await usdc(yes)) - before).toBe(pos!.contractsMicro);

    const kinds = (await ledger(sim)).filter((t) => t.wallet === yes.publicKey.toBase58()).map((t) => t.kind);
    expect(kinds).toEqual(expect.arrayContaining(['prediction-order', 'prediction-fill', 'prediction-claim']));
    const noKinds = (await ledger(sim)).filter((t) => t.wallet === no.publicKey.toBase58()).map((t) => t.kind);
    expect(noKinds).toContain('prediction-close');
    const tx = VersionedTransaction.deserialize(Buffer.from(claim.transaction, 'base64'));
    expect(tx.message.staticAccountKeys.length).toBeGreaterThan(0);
  });
});
