// Issue 21, item 4 (prediction): `create_order` in the market-hash layout a live order was captured in, served by the
// simulator (PredictionTx.useOrderLayout) and carried out by the real executor. The guard decodes it and holds it to
// the intent like the IDL layout, but its market is an opaque hash: refused (product-market, saying why) unless a hash
// of the intent's market is known from another source, then it lands; a hash of another market, a slippage that
// widens the limit past the intent's, and a tail of neither layout are refused, nothing signed or moved.
import { afterEach, describe, expect, it } from 'vitest';
import { TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { predictionBuyCheck } from '../../src/execution/productGuard/prediction.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import { createOrderHashData, decodeCreateOrderLayout, decodePredictionInstruction, PREDICTION_PROGRAM, type PredictionInstruction } from '../../src/jupiter/programs/prediction.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { Intent } from '../../src/sdk/intents.js';
import { guardTransaction } from '../../src/solana/guard.js';
import { marketIdHash } from '../../src/sim/products/predictionSeeds.js';
import { executorFor, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';
import { balances, USDC } from '../helpers/sim.js';

describe('prediction orders in the market-hash layout through the executor', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('prediction-variants');
  const desk = () => world.sim.ctx.state.prediction;
  afterEach(() => desk().tx.useOrderLayout('idl-0.10.0'));

  const taken = new Set<string>();
  const freshMarket = async (): Promise<Market> => {
    const page = await world.jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const m = page.data.flatMap((e) => e.markets).find((x) => !taken.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd < 900_000n);
    if (!m) throw new Error('no fresh market');
    taken.add(m.marketId);
    return m;
  };
  const buyOf = (m: Market): Intent => ({ kind: 'prediction.buy', marketId: m.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 950_000n });

  /**
   * An executor whose guard is the keeper's but for the buy check, given `known` as the market's hash from another
   * source; its builds go through `tamper` when one is set, and the last one served is kept.
   */
  const setup = async (known?: () => string | undefined) => {
    const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 60_000_000n]] });
    const served: VersionedTransaction[] = [];
    let tamper: ((ix: TransactionInstruction) => TransactionInstruction) | undefined;
    const build = s.deps.build;
    s.deps.build = async (intent, id, signal): Promise<BuiltTransaction> => {
      const built = await build(intent, id, signal);
      let tx = built.tx;
      if (tamper) {
        const m = TransactionMessage.decompile(tx.message);
        const instructions = m.instructions.map((ix) => (ix.programId.equals(PREDICTION_PROGRAM) ? tamper!(ix) : ix));
        tx = new VersionedTransaction(new TransactionMessage({ payerKey: m.payerKey, recentBlockhash: m.recentBlockhash, instructions }).compileToV0Message());
      }
      served.push(tx);
      return { ...built, tx };
    };
    if (known) {
      s.deps.guard = async (intent, built) => {
        const policy = await guardPolicyFor(intent, built, { wallet: s.wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: world.coSigners, market: undefined, maxPriceAgeMs: 60_000, now: Date.now() });
        const product = intent.kind === 'prediction.buy' ? predictionBuyCheck(intent, s.wallet.publicKey, { marketIdHash: known() }) : policy.product;
        const report = await guardTransaction(built.tx, { ...policy, product }, world.rpc);
        s.reports.push(report);
        return report;
      };
    }
    return { s, served, tampered: (t: typeof tamper) => (tamper = t) };
  };
  const orderOf = (tx: VersionedTransaction): PredictionInstruction => {
    const ix = TransactionMessage.decompile(tx.message).instructions.find((i) => i.programId.equals(PREDICTION_PROGRAM))!;
    return decodePredictionInstruction(rawInstruction(ix))!;
  };
  /** Refused with `rule` (its message containing `says`), nothing signed and nothing moved. */
  const refused = async (s: WalletExecutor, intent: Intent, rule: string, says: string) => {
    const before = await balances(world.sim, s.wallet.address);
    const { result, rec } = await s.run(intent);
    expect(result).toEqual({ state: 'rejected' });
    expect(rec.error?.message).toContain(`${rule}: `);
    expect(rec.error?.message).toContain(says);
    expect(rec.signature).toBeNull();
    expect(await balances(world.sim, s.wallet.address)).toEqual(before);
  };

  it('refuses a buy whose order names its market only by a hash, saying why', async () => {
    const { s, served } = await setup();
    const m = await freshMarket();
    desk().tx.useOrderLayout('market-hash');
    await refused(s, buyOf(m), 'product-market', 'no hash of the intent\'s market');
    expect(orderOf(served.at(-1)!)).toMatchObject({ name: 'createOrderByHash', args: { marketIdHash: marketIdHash(m.marketId), depositAmount: 10_000_000n, isBuy: true, isYes: true, slippageBps: 0, maxSlippageBps: null } });
    // The other violations are none: the rest of the order is held to the intent as the IDL layout's is.
    expect(s.reports.at(-1)!.violations.map((v) => v.rule)).toEqual(['product-market']);
  });

  it('lands the buy when its market\'s hash is known from elsewhere, and refuses another market\'s hash', async () => {
    let known: string | undefined;
    const { s } = await setup(() => known);
    const [m, other] = [await freshMarket(), await freshMarket()];
    desk().tx.useOrderLayout('market-hash');
    known = marketIdHash(other.marketId);
    await refused(s, buyOf(m), 'product-market', `the market id hash is ${marketIdHash(m.marketId)}`);
    known = marketIdHash(m.marketId);
    const run = await s.run(buyOf(m));
    expect(run.result).toEqual({ state: 'landed' });
    expect(s.reports.at(-1)!.violations).toEqual([]);
    const landed = world.sim.ctx.state.venue.chain.signatureStatus(run.rec.signature!)!.landed!.tx!;
    expect(orderOf(landed)).toMatchObject({ name: 'createOrderByHash', args: { marketIdHash: known } });
    const [order] = (await world.jup.prediction.getPredictionOrders({ ownerPubkey: s.wallet.address })).data;
    expect(order).toMatchObject({ marketId: m.marketId, isBuy: true });
  });

  it('refuses a hash-layout order whose slippage widens the limit past the intent\'s, or whose tail is of neither layout', async () => {
    const m = await freshMarket();
    const { s, tampered } = await setup(() => marketIdHash(m.marketId));
    desk().tx.useOrderLayout('market-hash');
    const rewrite = (change: (data: Buffer) => Buffer) => (ix: TransactionInstruction) => new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data: change(Buffer.from(ix.data)) });
    tampered(rewrite((data) => {
      const order = decodeCreateOrderLayout(data);
      if (order?.layout !== 'market-hash') throw new Error('not the market-hash layout');
      // A limit at the intent's own, but up to 10 % past it (max_slippage_bps 1000).
      return createOrderHashData({ ...order.args, maxFillPriceUsd: 950_000n, maxSlippageBps: 1_000 });
    }));
    await refused(s, buyOf(m), 'product-price-limit', 'plus 1000 bps slippage');
    tampered(rewrite((data) => Buffer.concat([data, Buffer.from([0])])));
    await refused(s, buyOf(m), 'product-instruction', 'tail is not the market-hash layout\'s');
    tampered(undefined);
    expect((await s.run(buyOf(m))).result).toEqual({ state: 'landed' });
  });
});
