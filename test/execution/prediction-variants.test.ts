// Issue 21, item 4 (prediction): `create_order` in the market-hash layout a live order was captured in, served by the
// simulator (PredictionTx.useOrderLayout) and carried out by the real executor. The guard decodes it and holds it to
// the intent like the IDL layout; its market is named by the API's hash of the market id, which the guard derives from
// the intent's id (sha256("market:" + id), first 16 bytes: how both live orders of the corpus name theirs): it lands;
// a hash of another market, a slippage that widens the limit past the intent's, and a tail of neither layout are
// refused, nothing signed or moved.
import { afterEach, describe, expect, it } from 'vitest';
import { TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import { createOrderHashData, decodeCreateOrderLayout, decodePredictionInstruction, marketIdHash, PREDICTION_PROGRAM, type PredictionInstruction } from '../../src/jupiter/programs/prediction.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { Intent } from '../../src/sdk/intents.js';
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

  /** An executor with the keeper's guard whose builds go through `tamper` when one is set; the builds served are kept. */
  const setup = async () => {
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

  it('lands a buy whose order names its market by the hash of its id, and refuses the hash of another market', async () => {
    const { s, served, tampered } = await setup();
    const [m, other] = [await freshMarket(), await freshMarket()];
    desk().tx.useOrderLayout('market-hash');
    // The venue names the other market by its hash: the order would buy there.
    tampered((ix) => {
      const order = decodeCreateOrderLayout(Buffer.from(ix.data));
      if (order?.layout !== 'market-hash') throw new Error('not the market-hash layout');
      return new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data: createOrderHashData({ ...order.args, marketIdHash: marketIdHash(other.marketId) }) });
    });
    await refused(s, buyOf(m), 'product-market', `is ${marketIdHash(other.marketId)}; the intent's is ${marketIdHash(m.marketId)}`);
    // The rest of the order is held to the intent as the IDL layout's is: nothing else is wrong.
    expect(s.reports.at(-1)!.violations.map((v) => v.rule)).toEqual(['product-market']);
    tampered(undefined);
    const run = await s.run(buyOf(m));
    expect(run.result).toEqual({ state: 'landed' });
    expect(s.reports.at(-1)!.violations).toEqual([]);
    expect(orderOf(served.at(-1)!)).toMatchObject({ name: 'createOrderByHash', args: { marketIdHash: marketIdHash(m.marketId), depositAmount: 10_000_000n, isBuy: true, isYes: true, slippageBps: 0, maxSlippageBps: null } });
    const landed = world.sim.ctx.state.venue.chain.signatureStatus(run.rec.signature!)!.landed!.tx!;
    expect(orderOf(landed)).toMatchObject({ name: 'createOrderByHash', args: { marketIdHash: marketIdHash(m.marketId) } });
    const [order] = (await world.jup.prediction.getPredictionOrders({ ownerPubkey: s.wallet.address })).data;
    expect(order).toMatchObject({ marketId: m.marketId, isBuy: true });
  });

  it('refuses a hash-layout order whose slippage widens the limit past the intent\'s, or whose tail is of neither layout', async () => {
    const m = await freshMarket();
    const { s, tampered } = await setup();
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
