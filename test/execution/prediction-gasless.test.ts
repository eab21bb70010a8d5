// Issue 21, item 4 (prediction): gasless orders through the real executor. The simulator builds them in the shape of
// the live API's (PredictionTx.useGasless, with the market-hash layout of the captures): Jupiter's gas payer is the
// fee payer and create_order's payer, and its signature is in the bytes, so the transaction's id is known when the
// wallet signs and the keeper sends it by RPC as any other prediction order. The guard lets that account pay the fee
// (policy.sponsoredFees) and be the order's payer, and holds every other rule: a buy, a sell and a close of the
// position land with the wallet paying no lamport; a stranger as the order's payer, the wallet paying the gas payer
// or a tip, and the gas payer as the payer of an order the wallet pays the fee of, are refused.
import { afterEach, describe, expect, it } from 'vitest';
import { Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { isFeePayerSignature, transactionId } from '../../src/execution/sponsored.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import { CREATE_ORDER_ACCOUNTS, decodePredictionInstruction, PREDICTION_PROGRAM } from '../../src/jupiter/programs/prediction.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { Intent } from '../../src/sdk/intents.js';
import { TIP_ACCOUNTS } from '../../src/solana/programs.js';
import { executorFor, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';
import { balances, control, USDC } from '../helpers/sim.js';

/** How a test rewrites a served build: its instructions, and the fee payer it is compiled with. */
type Tamper = (m: { payerKey: PublicKey; instructions: TransactionInstruction[] }) => { payerKey: PublicKey; instructions: TransactionInstruction[] };

describe('gasless prediction orders through the executor', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('prediction-gasless');
  const desk = () => world.sim.ctx.state.prediction;
  const chain = () => world.sim.ctx.state.venue.chain;
  const gasPayer = () => desk().tx.gasPayer.publicKey;
  afterEach(() => {
    desk().tx.useGasless(false);
    desk().tx.useOrderLayout('idl-0.10.0');
  });
  /** The live shape: gasless, create_order in the market-hash layout. */
  const live = () => {
    desk().tx.useOrderLayout('market-hash');
    desk().tx.useGasless(true);
  };

  const taken = new Set<string>();
  const freshMarket = async (): Promise<Market> => {
    const page = await world.jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const m = page.data.flatMap((e) => e.markets).find((x) => !taken.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd < 900_000n);
    if (!m) throw new Error('no fresh market');
    taken.add(m.marketId);
    return m;
  };
  const buyOf = (m: Market): Extract<Intent, { kind: 'prediction.buy' }> => ({ kind: 'prediction.buy', marketId: m.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 950_000n });

  /** An executor whose builds go through `tamper` when one is set; the builds served are kept. */
  const setup = async (lamports: bigint) => {
    const s = await executorFor(world, { lamports, tokens: [[USDC, 60_000_000n]] });
    const served: VersionedTransaction[] = [];
    let tamper: Tamper | undefined;
    const build = s.deps.build;
    s.deps.build = async (intent, id, signal): Promise<BuiltTransaction> => {
      const built = await build(intent, id, signal);
      let tx = built.tx;
      if (tamper) {
        const m = TransactionMessage.decompile(tx.message);
        const next = tamper({ payerKey: m.payerKey, instructions: [...m.instructions] });
        tx = new VersionedTransaction(new TransactionMessage({ ...next, recentBlockhash: m.recentBlockhash }).compileToV0Message());
      }
      served.push(tx);
      return { ...built, tx };
    };
    return { s, served, tampered: (t: Tamper | undefined) => (tamper = t) };
  };
  const orderOf = (tx: VersionedTransaction) => {
    const ix = TransactionMessage.decompile(tx.message).instructions.find((i) => i.programId.equals(PREDICTION_PROGRAM))!;
    const d = decodePredictionInstruction(rawInstruction(ix));
    if (d?.name !== 'createOrder' && d?.name !== 'createOrderByHash') throw new Error('no create_order');
    return d;
  };
  /** Lands, with no violation; the id recorded when the wallet signed is the gas payer's signature of what it signed. */
  const landsGasless = async (s: WalletExecutor, served: VersionedTransaction[], intent: Intent) => {
    const run = await s.run(intent);
    expect(s.reports.at(-1)!.violations).toEqual([]);
    expect(run.result).toEqual({ state: 'landed' });
    const tx = served.at(-1)!;
    expect(tx.message.staticAccountKeys[0]!.equals(gasPayer())).toBe(true);
    expect(orderOf(tx).accounts).toMatchObject({ payer: gasPayer().toBase58(), owner: s.wallet.address });
    expect(run.rec.signature).toBe(transactionId(tx));
    expect(isFeePayerSignature(tx, run.rec.signature!)).toBe(true);
    expect(chain().signatureStatus(run.rec.signature!)?.err).toBeNull();
    return run;
  };
  /** Refused with `rules` (each named in the error), nothing signed and nothing moved. */
  const refused = async (s: WalletExecutor, intent: Intent, rules: string[]) => {
    const before = await balances(world.sim, s.wallet.address);
    const { result, rec } = await s.run(intent);
    expect(result).toEqual({ state: 'rejected' });
    expect(rec.error?.code).toBe('GUARD_REFUSED');
    expect([...new Set(s.reports.at(-1)!.violations.map((v) => v.rule))].sort()).toEqual(rules);
    expect(rec.signature).toBeNull();
    expect(await balances(world.sim, s.wallet.address)).toEqual(before);
  };

  it('lands a gasless buy, a sell of part of its position and a close of the rest for a wallet holding no SOL, which pays no lamport', async () => {
    const m = await freshMarket();
    live();
    const { s, served } = await setup(0n);
    const me = s.wallet.address;
    await landsGasless(s, served, buyOf(m));
    expect(await balances(world.sim, me)).toEqual({ lamports: 0n, tokens: { [USDC]: 50_000_000n } });
    const [bought] = (await world.jup.prediction.getPredictionOrders({ ownerPubkey: me })).data;
    await control(world.sim, '/orders/fill', { order: bought!.pubkey });
    const [position] = (await world.jup.prediction.getPredictionPositions({ ownerPubkey: me })).data;
    const held = position!.contractsMicro!;
    expect(held).toBeGreaterThan(2_000_000n);

    await landsGasless(s, served, { kind: 'prediction.sell', positionPubkey: position!.pubkey, contractsMicro: 1_000_000n, minPriceMicroUsd: 10_000n });
    expect(orderOf(served.at(-1)!).args).toMatchObject({ isBuy: false, contracts: 1_000_000n });
    const [selling] = (await world.jup.prediction.getPredictionOrders({ ownerPubkey: me })).data;
    await control(world.sim, '/orders/fill', { order: selling!.pubkey });
    await landsGasless(s, served, { kind: 'prediction.closePosition', positionPubkey: position!.pubkey, minPriceMicroUsd: 10_000n });
    expect(orderOf(served.at(-1)!).args).toMatchObject({ isBuy: false, contracts: held - 1_000_000n });
    const [closing] = (await world.jup.prediction.getPredictionOrders({ ownerPubkey: me })).data;
    await control(world.sim, '/orders/fill', { order: closing!.pubkey });

    const after = await balances(world.sim, me);
    expect(after.lamports).toBe(0n);
    expect(after.tokens[USDC]).toBeGreaterThan(50_000_000n);
    expect((await world.jup.prediction.getPredictionPosition({ positionPubkey: position!.pubkey })).contractsMicro).toBe(0n);
  });

  it('refuses a gasless order whose payer is a stranger, which has the wallet pay the gas payer or a tip, or whose payer is the gas payer while the wallet pays the fee', async () => {
    const m = await freshMarket();
    live();
    // The wallet holds SOL here: what the venue would take from it is real.
    const { s, tampered } = await setup(10_000_000n);
    const me = s.wallet.publicKey;
    const stranger = Keypair.generate().publicKey;
    const PAYER = CREATE_ORDER_ACCOUNTS.indexOf('payer');
    const onOrder = (f: (ix: TransactionInstruction) => TransactionInstruction): Tamper => (msg) => ({ ...msg, instructions: msg.instructions.map((ix) => (ix.programId.equals(PREDICTION_PROGRAM) ? f(ix) : ix)) });
    const payer = (who: PublicKey) => onOrder((ix) => new TransactionInstruction({ programId: ix.programId, data: ix.data, keys: ix.keys.map((k, i) => (i === PAYER ? { ...k, pubkey: who } : k)) }));
    // 0.001 SOL: enough to open a tip account that does not exist yet on the simulator's chain.
    const pays = (to: PublicKey): Tamper => (msg) => ({ ...msg, instructions: [...msg.instructions, SystemProgram.transfer({ fromPubkey: me, toPubkey: to, lamports: 1_000_000 })] });

    // Neither the wallet nor the fee payer pays the order's rent: someone else, who would have to sign.
    tampered(payer(stranger));
    await refused(s, buyOf(m), ['product-owner', 'signer']);
    // The gas payer pays the fee and the rent; it is owed nothing by the wallet, and a sponsored wallet tips no one:
    // the lamports go where the intent sends nothing, and the wallet, charged no fee, may spend none.
    tampered(pays(gasPayer()));
    await refused(s, buyOf(m), ['destination', 'sol-outflow']);
    tampered(pays(new PublicKey([...TIP_ACCOUNTS][0]!)));
    await refused(s, buyOf(m), ['destination', 'sol-outflow']);
    // The wallet is the fee payer: the gas payer is then no sponsor, neither the order's payer nor a signer it may be.
    tampered((msg) => ({ ...msg, payerKey: me }));
    await refused(s, buyOf(m), ['product-owner', 'signer']);

    tampered(undefined);
    const before = (await balances(world.sim, me.toBase58())).lamports;
    expect((await s.run(buyOf(m))).result).toEqual({ state: 'landed' });
    expect((await balances(world.sim, me.toBase58())).lamports).toBe(before);
  });
});
