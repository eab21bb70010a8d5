import { describe, expect, it } from 'vitest';
import { Keypair, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { createMintToInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { MarketData } from '../../src/engine/ports.js';
import { buildTransaction } from '../../src/execution/build.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { inviteCodeFor } from '../../src/execution/sendInvite.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import { rawInstruction, type RawInstruction } from '../../src/jupiter/programs/instruction.js';
import { decodeLendInstruction, marketAddresses } from '../../src/jupiter/programs/lend.js';
import { decodePredictionInstruction, orderAtaAddress, vaultAddress } from '../../src/jupiter/programs/prediction.js';
import { dcaAddress, decodeRecurringInstruction } from '../../src/jupiter/programs/recurring.js';
import { decodeSendInstruction, invitePda } from '../../src/jupiter/programs/send.js';
import { decodeTriggerInstruction, initializeOrderData, orderAddress } from '../../src/jupiter/programs/trigger.js';
import { deriveInvitePda, inviteKeypairFromCode } from '../../src/jupiter/send/inviteCode.js';
import type { Intent } from '../../src/sdk/intents.js';
import { guardTransaction, type GuardReport } from '../../src/solana/guard.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { rewriteProductTransaction, PRODUCT_PROGRAM, type ProductAttack, type ProductKind } from '../helpers/hostileProducts.js';
import { control, SOL, USDC } from '../helpers/sim.js';
import { executorFor, marketOf, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';

const TOKEN = PROGRAM_IDS.splToken;
const ata = (owner: string | PublicKey, mint: string) => getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true, new PublicKey(TOKEN)).toBase58();

// The guard's product checks against transactions the real simulator builds: the product's own instruction decodes
// (with the layouts the venue wrote it with) to the intent's terms and to the escrow its program derives; the honest
// transaction passes; each term out of line with the intent, rewritten in the transaction or asked differently by
// the intent, is refused with its rule's name. Money that never leaves the wallet (a refund or payout sent to a
// stranger, shares minted to one) is caught by these rules alone: the flows see nothing leave.
describe('the guard holds each product instruction to its intent', { timeout: 240_000 }, () => {
  const world = useExecutorWorld('guard-products');
  let feed: MarketData | undefined;
  const stranger = Keypair.generate();

  async function setup(tokens: Array<[string, bigint]>, lamports = 2_000_000_000n): Promise<WalletExecutor> {
    feed ??= await marketOf(world, [SOL, USDC]);
    return executorFor(world, { lamports, tokens, market: feed });
  }
  /** The venue's transaction for an intent, built as the keeper builds it. */
  const build = (s: WalletExecutor, intent: Intent, intentId = `t.${intent.kind}.${Math.random().toString(36).slice(2)}`): Promise<BuiltTransaction> =>
    buildTransaction(intent, { jup: world.jup, rpc: world.rpc, wallet: s.wallet, intentId, maxSlippageBps: 300, usdPrice: (m) => feed?.prices[m] && { usd: feed.prices[m].usd, decimals: feed.prices[m].decimals } });
  /** The guard's report on `tx` with the policy the keeper derives from `intent` (and the build's own signers). */
  const guard = async (s: WalletExecutor, intent: Intent, built: BuiltTransaction, tx: VersionedTransaction = built.tx): Promise<GuardReport> =>
    guardTransaction(tx, await guardPolicyFor(intent, built, { wallet: s.wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: world.coSigners, market: feed, maxPriceAgeMs: 600_000, now: Date.now() }), world.rpc);
  const rules = (r: GuardReport): string[] => [...new Set(r.violations.map((v) => v.rule))].sort();
  const productRules = (r: GuardReport): string[] => rules(r).filter((x) => x.startsWith('product-'));
  /** The transaction with its instructions changed by `f`, recompiled (same payer and blockhash), unsigned. */
  const tamper = (tx: VersionedTransaction, f: (ixs: TransactionInstruction[]) => TransactionInstruction[]): VersionedTransaction => {
    const m = TransactionMessage.decompile(tx.message);
    return new VersionedTransaction(new TransactionMessage({ payerKey: m.payerKey, recentBlockhash: m.recentBlockhash, instructions: f([...m.instructions]) }).compileToV0Message());
  };
  const isProgram = (program: string) => (ix: TransactionInstruction) => ix.programId.toBase58() === program;
  /** The one instruction of the product's program in a transaction, as the decoders read it. */
  const productIx = (tx: VersionedTransaction, product: ProductKind): RawInstruction => {
    const found = TransactionMessage.decompile(tx.message).instructions.filter(isProgram(PRODUCT_PROGRAM[product]));
    expect(found).toHaveLength(1);
    return rawInstruction(found[0]!);
  };
  const attack = (s: WalletExecutor, built: BuiltTransaction, product: ProductKind, a: ProductAttack) =>
    rewriteProductTransaction(built.tx, product, a, { venue: world.sim.ctx.state.venue, wallet: s.wallet.publicKey, stranger });
  /** Only the rule that names a term: the honest transaction held to an intent that differs in that term alone. */
  const onlyRule = async (s: WalletExecutor, intent: Intent, built: BuiltTransaction, rule: string) => expect(rules(await guard(s, intent, built))).toEqual([rule]);

  it('reads a limit order\'s initialize_order, its order PDA and escrow, and refuses each term that is not the intent\'s', async () => {
    const s = await setup([[USDC, 100_000_000n]]);
    const me = s.wallet.address;
    const intent: Extract<Intent, { kind: 'trigger.create' }> = { kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 25_000_000n, takingAmount: 1_500_000_000n };
    const built = await build(s, intent);
    const d = decodeTriggerInstruction(productIx(built.tx, 'trigger.create'));
    if (d?.name !== 'initializeOrder') throw new Error(`not initialize_order: ${d?.name}`);
    const order = orderAddress(s.wallet.publicKey, d.params.uniqueId).address.toBase58();
    expect(d.accounts).toMatchObject({ maker: me, payer: me, inputMint: USDC, outputMint: SOL, order, reserve: ata(order, USDC), makerInputAccount: ata(me, USDC) });
    expect(d.params).toMatchObject({ makingAmount: 25_000_000n, takingAmount: 1_500_000_000n, expiredAt: null, feeBps: null, slippageBps: 0 });
    // The order the venue reports is the one the instruction opens.
    expect(built.quote.order).toBe(order);
    expect((await guard(s, intent, built)).violations).toEqual([]);

    await onlyRule(s, { ...intent, takingAmount: 1_500_000_001n }, built, 'product-amount');
    await onlyRule(s, { ...intent, outputMint: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN' }, built, 'product-mint');
    await onlyRule(s, { ...intent, expiresAt: 4_000_000_000 }, built, 'product-schedule');
    expect(rules(await guard(s, intent, built, attack(s, built, 'trigger.create', { kind: 'taking-amount' }).tx))).toEqual(['product-amount']);
    expect(rules(await guard(s, intent, built, attack(s, built, 'trigger.create', { kind: 'mint', mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' }).tx))).toEqual(['product-mint']);
    const escrow = await guard(s, intent, built, attack(s, built, 'trigger.create', { kind: 'escrow-stranger' }).tx);
    expect(productRules(escrow)).toEqual(['product-escrow']);
    expect(rules(escrow)).toContain('destination');
    const withParams = (p: Partial<typeof d.params>) => tamper(built.tx, (ixs) => ixs.map((ix) => (isProgram(PRODUCT_PROGRAM['trigger.create'])(ix) ? new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data: initializeOrderData({ ...d.params, ...p }) }) : ix)));
    expect(rules(await guard(s, intent, built, withParams({ slippageBps: 500 })))).toEqual(['product-price-limit']);
    expect(rules(await guard(s, intent, built, withParams({ feeBps: 25 })))).toEqual(['product-fee']);
    // The order account of another unique id is not the order the instruction names: neither is its escrow, so the
    // deposit into the named one goes to a stranger.
    expect(rules(await guard(s, intent, built, withParams({ uniqueId: d.params.uniqueId + 1n })))).toEqual(['destination', 'escrow-amount', 'product-escrow']);

    // Deposit and drain: the deposit goes into the escrow the instruction names, and in the same transaction the
    // escrow's delegate (the venue's keeper, a declared co-signer) pays it on to a stranger. No outflow of the wallet
    // goes anywhere but the escrow; the escrow ends holding nothing of it.
    const venue = world.sim.ctx.state.venue;
    const theirs = getAssociatedTokenAddressSync(new PublicKey(USDC), stranger.publicKey);
    if (!venue.chain.account(theirs)) venue.chain.createTokenAccount(theirs, { mint: new PublicKey(USDC), owner: stranger.publicKey, amount: 0n, program: TOKEN, native: false });
    const drain = tamper(built.tx, (ixs) => [...ixs, createTransferCheckedInstruction(new PublicKey(d.accounts.reserve), new PublicKey(USDC), theirs, venue.keeper.publicKey, 25_000_000n, 6)]);
    expect(rules(await guard(s, intent, built, drain))).toEqual(['escrow-amount']);

    // Without its product instruction, with it twice, or checked as another kind: refused as such.
    // (Without the instruction the order account is not in the transaction, so the flows no longer see an escrow either.)
    expect(productRules(await guard(s, intent, built, tamper(built.tx, (ixs) => ixs.filter((ix) => !isProgram(PRODUCT_PROGRAM['trigger.create'])(ix)))))).toEqual(['product-instruction']);
    expect(rules(await guard(s, intent, built, tamper(built.tx, (ixs) => [...ixs, ixs.find(isProgram(PRODUCT_PROGRAM['trigger.create']))!])))).toEqual(['product-instruction']);
    expect(rules(await guard(s, { kind: 'trigger.cancel', order }, built))).toContain('product-instruction');
  });

  it('reads a limit order\'s cancel_order and refuses another order or a refund to a stranger', async () => {
    const s = await setup([[USDC, 100_000_000n]]);
    // Limits far above the market: the keeper never fills them.
    const placed = await s.run({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 20_000_000n, takingAmount: 1_000_000_000n });
    expect(placed.result).toEqual({ state: 'landed' });
    const other = await s.run({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 20_000_000n, takingAmount: 1_200_000_000n });
    expect(other.result).toEqual({ state: 'landed' });
    const order = String(placed.rec.quote?.order);
    const intent: Intent = { kind: 'trigger.cancel', order };
    const built = await build(s, intent);
    const d = decodeTriggerInstruction(productIx(built.tx, 'trigger.cancel'));
    if (d?.name !== 'cancelOrder') throw new Error(`not cancel_order: ${d?.name}`);
    expect(d.accounts).toMatchObject({ signer: s.wallet.address, maker: s.wallet.address, order, reserve: ata(order, USDC), makerInputAccount: ata(s.wallet.address, USDC), inputMint: USDC });
    expect((await guard(s, intent, built)).violations).toEqual([]);
    await onlyRule(s, { kind: 'trigger.cancel', order: String(other.rec.quote?.order) }, built, 'product-target');
    // The refund to a stranger moves nothing out of the wallet: the product rule sees the account named, the payout
    // rules what the simulation pays (out of the escrow to the stranger, nothing to the wallet).
    expect(rules(await guard(s, intent, built, attack(s, built, 'trigger.cancel', { kind: 'payout-stranger' }).tx))).toEqual(['payout-destination', 'payout-short', 'product-payout']);
  });

  it('reads a recurring order\'s openDcaV2 and closeDca and refuses a schedule, bound, escrow or refund not the intent\'s', async () => {
    const s = await setup([[USDC, 400_000_000n]]);
    const me = s.wallet.address;
    const intent: Extract<Intent, { kind: 'recurring.create' }> = { kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 200_000_000n, numberOfOrders: 2, intervalSeconds: 86_400, minPrice: 0.001, maxPrice: 0.05 };
    const built = await build(s, intent);
    const d = decodeRecurringInstruction(productIx(built.tx, 'recurring.create'));
    if (d?.name !== 'openDcaV2') throw new Error(`not openDcaV2: ${d?.name}`);
    const dca = dcaAddress(s.wallet.publicKey, new PublicKey(USDC), new PublicKey(SOL), d.args.applicationIdx).address.toBase58();
    expect(d.accounts).toMatchObject({ user: me, inputMint: USDC, outputMint: SOL, dca, inAta: ata(dca, USDC), userAta: ata(me, USDC) });
    // 100 USDC a cycle at 0.001 to 0.05 SOL a USDC: 0.1 to 5 SOL, in lamports.
    expect(d.args).toMatchObject({ inAmount: 200_000_000n, inAmountPerCycle: 100_000_000n, cycleFrequency: 86_400n, minPrice: 100_000_000n, maxPrice: 5_000_000_000n, startAt: null });
    expect((await guard(s, intent, built)).violations).toEqual([]);
    // Four slices of the same total are smaller ones: their bounds are smaller out amounts too.
    expect(rules(await guard(s, { ...intent, numberOfOrders: 4 }, built))).toEqual(['product-price-limit', 'product-schedule']);
    await onlyRule(s, { ...intent, intervalSeconds: 3_600 }, built, 'product-schedule');
    await onlyRule(s, { ...intent, minPrice: 0.0011 }, built, 'product-price-limit');
    await onlyRule(s, { ...intent, maxPrice: undefined }, built, 'product-price-limit');
    expect(rules(await guard(s, intent, built, attack(s, built, 'recurring.create', { kind: 'mint', mint: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN' }).tx))).toContain('product-mint');
    const escrow = await guard(s, intent, built, attack(s, built, 'recurring.create', { kind: 'escrow-stranger' }).tx);
    expect(productRules(escrow)).toEqual(['product-escrow']);

    const placed = await s.run(intent);
    expect(placed.result).toEqual({ state: 'landed' });
    const [open] = (await world.jup.recurring.getOrders({ user: me, orderStatus: 'active', recurringType: 'time' })).orders;
    const cancel: Intent = { kind: 'recurring.cancel', order: open!.orderKey };
    const cancelBuilt = await build(s, cancel);
    const c = decodeRecurringInstruction(productIx(cancelBuilt.tx, 'recurring.cancel'));
    if (c?.name !== 'closeDca') throw new Error(`not closeDca: ${c?.name}`);
    expect(c.accounts).toMatchObject({ user: me, dca: open!.orderKey, userInAta: ata(me, USDC), userOutAta: ata(me, SOL), inAta: ata(open!.orderKey, USDC) });
    expect((await guard(s, cancel, cancelBuilt)).violations).toEqual([]);
    await onlyRule(s, { kind: 'recurring.cancel', order: dca }, cancelBuilt, 'product-target');
    expect(rules(await guard(s, cancel, cancelBuilt, attack(s, cancelBuilt, 'recurring.cancel', { kind: 'payout-stranger' }).tx))).toEqual(['payout-destination', 'payout-short', 'product-payout']);
  });

  it('reads a lend deposit and withdrawal with the Earn IDL and refuses shares, payouts, assets or escrows not the wallet\'s', async () => {
    const s = await setup([[USDC, 100_000_000n]]);
    const me = s.wallet.address;
    const market = marketAddresses(new PublicKey(USDC), new PublicKey(TOKEN));
    const intent: Intent = { kind: 'lend.deposit', asset: USDC, amount: 40_000_000n };
    const built = await build(s, intent);
    const d = decodeLendInstruction(productIx(built.tx, 'lend.deposit'));
    if (d?.name !== 'deposit') throw new Error(`not deposit: ${d?.name}`);
    expect(d.amount).toBe(40_000_000n);
    expect(d.accounts).toMatchObject({ signer: me, mint: USDC, vault: market.vault.toBase58(), fTokenMint: market.fTokenMint.toBase58(), recipientTokenAccount: ata(me, market.fTokenMint.toBase58()), depositorTokenAccount: ata(me, USDC) });
    expect((await guard(s, intent, built)).violations).toEqual([]);
    // Shares minted to a stranger: the asset still goes into the vault, nothing else leaves the wallet; the wallet's
    // own share account gets nothing (payout-short), the stranger's the mint (payout-destination).
    expect(rules(await guard(s, intent, built, attack(s, built, 'lend.deposit', { kind: 'share-stranger' }).tx))).toEqual(['payout-destination', 'payout-short', 'product-share-token']);
    expect(productRules(await guard(s, intent, built, attack(s, built, 'lend.deposit', { kind: 'escrow-stranger' }).tx))).toEqual(['product-escrow']);
    expect(productRules(await guard(s, intent, built, attack(s, built, 'lend.deposit', { kind: 'mint', mint: SOL }).tx))).toContain('product-mint');
    expect(productRules(await guard(s, { kind: 'lend.deposit', asset: USDC, amount: 40_000_001n }, built))).toEqual(['product-amount']);
    // The wallet's shares arrive in full, and the jlToken's mint authority (the venue's keeper in the simulator, the
    // program on mainnet) mints a thousand more to a stranger: the wallet's shares are diluted.
    const venue = world.sim.ctx.state.venue;
    const jl = market.fTokenMint;
    const theirs = getAssociatedTokenAddressSync(jl, stranger.publicKey);
    if (!venue.chain.account(theirs)) venue.chain.createTokenAccount(theirs, { mint: jl, owner: stranger.publicKey, amount: 0n, program: TOKEN, native: false });
    const dilute = tamper(built.tx, (ixs) => [...ixs, createMintToInstruction(jl, theirs, venue.keeper.publicKey, 1_000_000_000n)]);
    expect(rules(await guard(s, intent, built, dilute))).toEqual(['payout-destination']);

    const deposited = await s.run(intent);
    expect(deposited.result).toEqual({ state: 'landed' });
    const withdraw: Intent = { kind: 'lend.withdraw', asset: USDC, amount: 10_000_000n };
    const wBuilt = await build(s, withdraw);
    const w = decodeLendInstruction(productIx(wBuilt.tx, 'lend.withdraw'));
    if (w?.name !== 'withdraw') throw new Error(`not withdraw: ${w?.name}`);
    expect(w.amount).toBe(10_000_000n);
    expect(w.accounts).toMatchObject({ signer: me, mint: USDC, recipientTokenAccount: ata(me, USDC), ownerTokenAccount: ata(me, market.fTokenMint.toBase58()), vault: market.vault.toBase58() });
    expect((await guard(s, withdraw, wBuilt)).violations).toEqual([]);
    expect(rules(await guard(s, withdraw, wBuilt, attack(s, wBuilt, 'lend.withdraw', { kind: 'payout-stranger' }).tx))).toEqual(['payout-destination', 'payout-short', 'product-payout']);
    expect(productRules(await guard(s, withdraw, wBuilt, attack(s, wBuilt, 'lend.withdraw', { kind: 'mint', mint: SOL }).tx))).toContain('product-mint');
    await onlyRule(s, { ...withdraw, amount: 9_999_999n }, wBuilt, 'product-amount');
  });

  it('reads prediction orders, closes and claims, and refuses a side, market, limit, escrow or payout not the intent\'s', async () => {
    const s = await setup([[USDC, 100_000_000n]]);
    const me = s.wallet.address;
    const [m, n] = await openMarkets(2);
    const buy: Extract<Intent, { kind: 'prediction.buy' }> = { kind: 'prediction.buy', marketId: m!.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 950_000n };
    const built = await build(s, buy);
    const d = decodePredictionInstruction(productIx(built.tx, 'prediction.buy'));
    if (d?.name !== 'createOrder') throw new Error(`not create_order: ${d?.name}`);
    expect(d.args).toMatchObject({ marketId: m!.marketId, isYes: true, isBuy: true, depositAmount: 10_000_000n, integrator: null });
    expect(d.args.maxFillPriceUsd).toBeLessThanOrEqual(950_000n);
    expect(d.accounts).toMatchObject({ owner: me, settlementMint: USDC, ownerTokenAccount: ata(me, USDC), orderAta: orderAtaAddress(new PublicKey(d.accounts.order), new PublicKey(USDC)).toBase58(), vault: vaultAddress(new PublicKey(USDC)).address.toBase58() });
    expect(PublicKey.isOnCurve(new PublicKey(d.accounts.order).toBytes())).toBe(false);
    expect((await guard(s, buy, built)).violations).toEqual([]);
    await onlyRule(s, { ...buy, side: 'no' }, built, 'product-side');
    await onlyRule(s, { ...buy, marketId: n!.marketId }, built, 'product-market');
    await onlyRule(s, { ...buy, maxPriceMicroUsd: d.args.maxFillPriceUsd - 1n }, built, 'product-price-limit');
    expect(rules(await guard(s, buy, built, attack(s, built, 'prediction.buy', { kind: 'side' }).tx))).toEqual(['product-side']);
    expect(rules(await guard(s, buy, built, attack(s, built, 'prediction.buy', { kind: 'market', marketId: n!.marketId }).tx))).toEqual(['product-market']);
    expect(rules(await guard(s, buy, built, attack(s, built, 'prediction.buy', { kind: 'price-limit', microUsd: 990_000n }).tx))).toEqual(['product-price-limit']);
    expect(productRules(await guard(s, buy, built, attack(s, built, 'prediction.buy', { kind: 'escrow-stranger' }).tx))).toEqual(['product-escrow']);
    expect(productRules(await guard(s, buy, built, attack(s, built, 'prediction.buy', { kind: 'amount' }).tx))).toEqual(['product-amount']);

    // A filled buy, a sell of part of it, a close of an unfilled buy and a claim after the market resolves.
    expect((await s.run(buy)).result).toEqual({ state: 'landed' });
    const [bought] = (await world.jup.prediction.getPredictionOrders({ ownerPubkey: me })).data;
    await control(world.sim, '/orders/fill', { order: bought!.pubkey });
    const [position] = (await world.jup.prediction.getPredictionPositions({ ownerPubkey: me })).data;
    const sell: Extract<Intent, { kind: 'prediction.sell' }> = { kind: 'prediction.sell', positionPubkey: position!.pubkey, contractsMicro: 1_000_000n, minPriceMicroUsd: 10_000n };
    const sBuilt = await build(s, sell);
    const sd = decodePredictionInstruction(productIx(sBuilt.tx, 'prediction.sell'));
    if (sd?.name !== 'createOrder') throw new Error(`not create_order: ${sd?.name}`);
    expect(sd.args).toMatchObject({ isBuy: false, contracts: 1_000_000n, depositAmount: 0n, marketId: m!.marketId, isYes: true });
    expect(sd.accounts.position).toBe(position!.pubkey);
    expect((await guard(s, sell, sBuilt)).violations).toEqual([]);
    await onlyRule(s, { ...sell, minPriceMicroUsd: sd.args.maxFillPriceUsd + 1n }, sBuilt, 'product-price-limit');
    await onlyRule(s, { ...sell, contractsMicro: 500_000n }, sBuilt, 'product-amount');
    expect(rules(await guard(s, sell, sBuilt, attack(s, sBuilt, 'prediction.sell', { kind: 'amount' }).tx))).toEqual(['product-amount']);

    const unfilled = await s.run({ ...buy, marketId: n!.marketId, depositAmount: 6_000_000n });
    expect(unfilled.result).toEqual({ state: 'landed' });
    const open = (await world.jup.prediction.getPredictionOrders({ ownerPubkey: me })).data.find((o) => o.marketId === n!.marketId)!;
    const close: Intent = { kind: 'prediction.closeOrder', orderPubkey: open.pubkey };
    const cBuilt = await build(s, close);
    const cd = decodePredictionInstruction(productIx(cBuilt.tx, 'prediction.closeOrder'));
    expect(cd).toMatchObject({ name: 'cancelOrder', accounts: { owner: me, order: open.pubkey, ownerTokenAccount: ata(me, USDC), rentDestination: me } });
    expect((await guard(s, close, cBuilt)).violations).toEqual([]);
    expect(rules(await guard(s, close, cBuilt, attack(s, cBuilt, 'prediction.closeOrder', { kind: 'payout-stranger' }).tx))).toEqual(['payout-destination', 'payout-short', 'product-payout']);
    await onlyRule(s, { kind: 'prediction.closeOrder', orderPubkey: bought!.pubkey }, cBuilt, 'product-target');

    await control(world.sim, '/prediction/resolve', { marketId: m!.marketId, result: 'yes' });
    const claim: Intent = { kind: 'prediction.claim', positionPubkey: position!.pubkey };
    const clBuilt = await build(s, claim);
    const cl = decodePredictionInstruction(productIx(clBuilt.tx, 'prediction.claim'));
    expect(cl).toMatchObject({ name: 'claimPayout', accounts: { claimer: me, position: position!.pubkey, ownerTokenAccount: ata(me, USDC), vault: vaultAddress(new PublicKey(USDC)).address.toBase58() } });
    expect((await guard(s, claim, clBuilt)).violations).toEqual([]);
    expect(rules(await guard(s, claim, clBuilt, attack(s, clBuilt, 'prediction.claim', { kind: 'payout-stranger' }).tx))).toEqual(['payout-destination', 'payout-short', 'product-payout']);
    await onlyRule(s, { kind: 'prediction.claim', positionPubkey: open.position! }, clBuilt, 'product-target');
  });

  it('reads a send\'s initialize_token and a clawback, and refuses an invite, escrow, amount or refund not the keeper\'s', async () => {
    const s = await setup([[USDC, 50_000_000n]]);
    const me = s.wallet.address;
    const intent: Intent = { kind: 'send', mint: USDC, amount: 7_000_000n };
    const id = 't.send.guard-products';
    const built = await build(s, intent, id);
    const signer = inviteKeypairFromCode(inviteCodeFor(s.wallet, id)).publicKey;
    const invite = invitePda(signer).address.toBase58();
    const d = decodeSendInstruction(productIx(built.tx, 'send'));
    if (d?.name !== 'initializeToken') throw new Error(`not initialize_token: ${d?.name}`);
    expect(d.amount).toBe(7_000_000n);
    expect(d.accounts).toMatchObject({ sender: me, inviteSigner: signer.toBase58(), inviteInfo: invite, escrow: ata(invite, USDC), mint: USDC, senderTokenAccount: ata(me, USDC) });
    expect((await guard(s, intent, built)).violations).toEqual([]);
    // Lamports sent to the invite's address beforehand (anyone may: the address is derived from a key the venue
    // learns) are no account yet: the send is still the wallet's own new invite.
    world.sim.ctx.state.venue.chain.setAccount(new PublicKey(invite), { lamports: 1_000_000, data: new Uint8Array(0), owner: new PublicKey(PROGRAM_IDS.system), executable: false });
    expect((await guard(s, intent, built)).violations).toEqual([]);
    // An invite whose signer is not the one the keeper derived from its own code is not the keeper's escrow.
    expect(productRules(await guard(s, intent, { ...built, engineSigners: [Keypair.generate().publicKey.toBase58()] }))).toEqual(['product-escrow']);
    expect(productRules(await guard(s, intent, built, attack(s, built, 'send', { kind: 'escrow-stranger' }).tx))).toEqual(['product-escrow']);
    expect(productRules(await guard(s, intent, built, attack(s, built, 'send', { kind: 'amount' }).tx))).toEqual(['product-amount']);
    expect(productRules(await guard(s, intent, built, attack(s, built, 'send', { kind: 'mint', mint: SOL }).tx))).toContain('product-mint');

    const sent = await s.run(intent);
    expect(sent.result).toEqual({ state: 'landed' });
    const pda = deriveInvitePda(inviteKeypairFromCode(inviteCodeFor(s.wallet, sent.id)).publicKey).toBase58();
    const clawback: Intent = { kind: 'send.clawback', invitePda: pda };
    const cBuilt = await build(s, clawback);
    const c = decodeSendInstruction(productIx(cBuilt.tx, 'send.clawback'));
    expect(c).toMatchObject({ name: 'clawbackToken', accounts: { inviteInfo: pda, sender: me, senderTokenAccount: ata(me, USDC), escrow: ata(pda, USDC) } });
    expect((await guard(s, clawback, cBuilt)).violations).toEqual([]);
    expect(rules(await guard(s, clawback, cBuilt, attack(s, cBuilt, 'send.clawback', { kind: 'payout-stranger' }).tx))).toEqual(['payout-destination', 'payout-short', 'product-payout']);
    await onlyRule(s, { kind: 'send.clawback', invitePda: invite }, cBuilt, 'product-target');
  });

  /** Markets handed out so far (each test trades its own). */
  const taken = new Set<string>();
  /** `n` open politics markets quoted on both sides below $0.90 that no other test here trades. */
  async function openMarkets(n: number): Promise<Market[]> {
    const page = await world.jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const found = page.data
      .flatMap((e) => e.markets)
      .filter((x) => !taken.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd < 900_000n && x.pricing.buyNoPriceUsd !== null)
      .slice(0, n);
    expect(found).toHaveLength(n);
    for (const m of found) taken.add(m.marketId);
    return found;
  }
});
