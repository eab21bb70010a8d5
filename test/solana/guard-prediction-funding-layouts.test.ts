// Issue 21, item 4 (prediction): a buy paid in USDC and settled in JupUSD, funded by a top-level route of Jupiter's
// aggregator (JUP6…) in the same transaction, as a live order was captured (src/jupiter/programs/prediction.ts).
// The API docs describe no such buy, so the simulator does not serve one: the transactions are built here, on the
// simulator's chain, and judged by the guard in their mainnet shape (test/helpers/mainnetShape.ts: the swap's and
// the deposit's moves run inside the route, as its CPIs would) through the keeper's own policy for the intent. The
// honest one passes; a route taking more than the deposit, paying its output elsewhere, losing too much, charging a
// fee, taking another token besides, a second route, a route between the same mint, a sell carrying a route, are refused.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComputeBudgetProgram, Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { FUNDING_BOUND_BPS, predictionSellCheck } from '../../src/execution/productGuard/prediction.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import { aggregatorRouteInstruction, createOrderHashData, createOrderInstruction, decodeAggregatorRoute, orderAtaAddress, PREDICTION_PROGRAM } from '../../src/jupiter/programs/prediction.js';
import { JUPUSD_MINT } from '../../src/lib/mints.js';
import type { Intent } from '../../src/sdk/intents.js';
import { guardTransaction, type GuardReport } from '../../src/solana/guard.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { useExecutorWorld } from '../helpers/executorKit.js';
import { mainnetTwin } from '../helpers/mainnetShape.js';
import { startMainnetShapeRpc, type MainnetShapeRpc } from '../helpers/mainnetShapeRpc.js';
import { control, fundedWallet, JUP, USDC } from '../helpers/sim.js';

const JUPUSD = new PublicKey(JUPUSD_MINT);
const USDC_KEY = new PublicKey(USDC);
/** The aggregator's event authority, as the captured route names it. */
const EVENT_AUTHORITY = new PublicKey('D8cy77BBepLMngZx6ZukaTff5hCt1HrWyKk3Hnd9oitf');
const ata = (owner: PublicKey, mint: PublicKey) => getAssociatedTokenAddressSync(mint, owner, true);

/** What a funded buy is made of; each field a twin may change. */
interface Funded {
  inAmount: bigint;
  swapOut: bigint;
  deposit: bigint;
  feeBps: number;
  /** Whose settlement-token account the route's output lands in, and the venue pays (the wallet's unless changed). */
  routeTo?: PublicKey;
  /** Extra moves inside the route, and the accounts they touch (the route lists them, as a program must to reach them). */
  extra?: (wallet: PublicKey) => { moves: TransactionInstruction[]; touches: PublicKey[] };
  routes?: number;
  settlement?: PublicKey;
  layout?: 'idl-0.10.0' | 'market-hash';
}

describe('a prediction buy funded by an aggregator swap, judged in its mainnet shape', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('guard-prediction-funding');
  let front: MainnetShapeRpc;
  beforeAll(async () => {
    front = await startMainnetShapeRpc(world.sim.rpcUrl);
    // The venue's keeper pays the swaps' outputs.
    await control(world.sim, '/airdrop', { wallet: world.sim.ctx.state.venue.keeper.publicKey.toBase58(), mint: JUPUSD_MINT, amount: '500000000' });
    await control(world.sim, '/airdrop', { wallet: world.sim.ctx.state.venue.keeper.publicKey.toBase58(), mint: USDC, amount: '1000000' });
  });
  afterAll(async () => {
    await front.close();
  });
  const venue = () => world.sim.ctx.state.venue;
  const HONEST: Funded = { inAmount: 5_000_000n, swapOut: 4_996_705n, deposit: 4_996_705n, feeBps: 0 };
  /** The intent every funded buy here is judged against: 5 USDC on YES, at most $0.25 a contract. */
  const intentOf = (): Extract<Intent, { kind: 'prediction.buy' }> => ({ kind: 'prediction.buy', marketId: 'POLY-2772176', side: 'yes', depositAmount: 5_000_000n, maxPriceMicroUsd: 250_000n, depositMint: USDC });

  /** A wallet with 20 USDC (and `jupusd` JupUSD). */
  const wallet = (jupusd = 0n): Promise<Keypair> => fundedWallet(world.sim, 1_000_000_000n, jupusd > 0n ? [[USDC, 20_000_000n], [JUPUSD_MINT, jupusd]] : [[USDC, 20_000_000n]]);

  /** The sim-shaped funded buy: the route and create_order, the swap's and the deposit's moves beside them. */
  const build = (kp: Keypair, f: Funded) => {
    const me = kp.publicKey;
    const keeper = venue().keeper.publicKey;
    const settlement = f.settlement ?? JUPUSD;
    const mine = ata(me, settlement);
    const to = ata(f.routeTo ?? me, settlement);
    const order = PublicKey.findProgramAddressSync([Buffer.from('order'), randomBytes(16)], PREDICTION_PROGRAM)[0];
    const position = PublicKey.findProgramAddressSync([Buffer.from('position'), randomBytes(16)], PREDICTION_PROGRAM)[0];
    const escrow = orderAtaAddress(order, settlement);
    const extra = f.extra?.(me) ?? { moves: [], touches: [] };
    const plain = aggregatorRouteInstruction({ authority: me, source: ata(me, USDC_KEY), destination: to, destinationMint: settlement, eventAuthority: EVENT_AUTHORITY, inAmount: f.inAmount, quotedOutAmount: f.swapOut + 5_000n, slippageBps: 10, platformFeeBps: f.feeBps });
    // The route's own accounts, then the ones its swap touches (a route plan's pools and their vaults, here the venue's).
    const touched = [ata(keeper, USDC_KEY), ata(keeper, settlement), ...extra.touches].map((pubkey) => ({ pubkey, isSigner: false, isWritable: true }));
    const route = new TransactionInstruction({ programId: plain.programId, keys: [...plain.keys, { pubkey: keeper, isSigner: true, isWritable: false }, ...touched], data: plain.data });
    const args = { externalOrderId: randomBytes(16).toString('hex'), isYes: true, isBuy: true, contracts: 23_700_000n, maxFillPriceUsd: 200_000n, depositAmount: f.deposit };
    const ix = createOrderInstruction({ payer: me, owner: me, authority: keeper, position, order, ownerTokenAccount: mine, settlementMint: settlement }, { ...args, marketId: 'POLY-2772176', orderType: 'market', integrator: null, integratorFeeBps: null });
    const orderIx = f.layout === 'market-hash' ? { ...ix, data: createOrderHashData({ ...args, marketIdHash: 'e5ecff63f0706f7d16bbb4556674cea8', slippageBps: 0, maxSlippageBps: null }) } : ix;
    const instructions: TransactionInstruction[] = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 400_000 }),
      createAssociatedTokenAccountIdempotentInstruction(me, mine, me, settlement),
      ...Array.from({ length: f.routes ?? 1 }, () => route),
      // The swap: the wallet's USDC to the venue, the venue's settlement tokens to where the route says.
      createAssociatedTokenAccountIdempotentInstruction(keeper, ata(keeper, USDC_KEY), keeper, USDC_KEY),
      createTransferCheckedInstruction(ata(me, USDC_KEY), USDC_KEY, ata(keeper, USDC_KEY), me, f.inAmount, 6),
      createAssociatedTokenAccountIdempotentInstruction(keeper, to, f.routeTo ?? me, settlement),
      createTransferCheckedInstruction(ata(keeper, settlement), settlement, to, keeper, f.swapOut, 6),
      ...extra.moves,
      // The order: its escrow created at the wallet's expense, the deposit into it.
      createAssociatedTokenAccountIdempotentInstruction(me, escrow, order, settlement),
      orderIx,
      createTransferCheckedInstruction(mine, settlement, escrow, me, f.deposit, 6),
    ];
    return venue().chain.buildTransaction(me, instructions).tx;
  };

  /** The guard's report on the mainnet twin of a funded buy, under the keeper's policy for `intent`. */
  const judge = async (kp: Keypair, f: Funded, intent: Intent = intentOf()): Promise<GuardReport> => {
    const twin = mainnetTwin(build(kp, f), { program: PROGRAM_IDS.jupiterV6, wallet: kp.publicKey });
    front.register(twin);
    const policy = await guardPolicyFor(intent, {}, { wallet: kp.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: world.coSigners, market: undefined, maxPriceAgeMs: 60_000, now: Date.now() });
    return guardTransaction(twin.twin, policy, front.rpc);
  };
  const rules = (r: GuardReport) => [...new Set(r.violations.map((v) => v.rule))].sort();

  it('passes the honest funded buy, in either layout of create_order, and reads the route as the capture has it', async () => {
    const kp = await wallet();
    const honest = await judge(kp, HONEST);
    expect(honest.violations).toEqual([]);
    expect(honest.simulated).toBe(true);
    // The wallet pays the deposit in USDC and ends with the swap's output in the order's escrow, nothing else.
    expect(honest.changes.tokens.find((t) => t.mint === USDC)?.delta).toBe(-5_000_000n);
    // In the live layout the market is named by the hash of POLY-2772176 (sha256("market:POLY-2772176")[0..16]).
    expect((await judge(kp, { ...HONEST, layout: 'market-hash' })).violations).toEqual([]);
    // The route the captured live buy carried (jup-ag's IDL `route`): its amounts read from the end of its data.
    const captured = Buffer.from('e517cb977ae3ad2a010000006800640001404b4c0000000000ea514c00000000000a0000', 'hex');
    const accounts = Array.from({ length: 23 }, () => Keypair.generate().publicKey.toBase58());
    expect(decodeAggregatorRoute({ programId: PROGRAM_IDS.jupiterV6, accounts, data: captured })).toMatchObject({ name: 'route', authority: accounts[1], source: accounts[2], destination: accounts[3], destinationMint: accounts[5], inAmount: 5_000_000n, quotedOutAmount: 5_001_706n, slippageBps: 10, platformFeeBps: 0 });
    expect(decodeAggregatorRoute(rawInstruction(aggregatorRouteInstruction({ authority: kp.publicKey, source: kp.publicKey, destination: kp.publicKey, destinationMint: JUPUSD, eventAuthority: EVENT_AUTHORITY, inAmount: 1n, quotedOutAmount: 2n, slippageBps: 3, platformFeeBps: 4 })))).toMatchObject({ inAmount: 1n, quotedOutAmount: 2n, slippageBps: 3, platformFeeBps: 4 });
  });

  it('refuses a route that takes more than the deposit, pays its output elsewhere, loses too much or charges a fee', async () => {
    const kp = await wallet(10_000_000n);
    expect(rules(await judge(kp, { ...HONEST, inAmount: 6_000_000n }))).toEqual(expect.arrayContaining(['product-amount', 'token-outflow']));
    // The output to a stranger; the order then pays its deposit out of the wallet's own JupUSD.
    expect(rules(await judge(kp, { ...HONEST, routeTo: Keypair.generate().publicKey }))).toEqual(expect.arrayContaining(['product-escrow', 'token-outflow']));
    const least = (5_000_000n * (10_000n - FUNDING_BOUND_BPS)) / 10_000n;
    const lossy = await judge(kp, { ...HONEST, swapOut: least - 1n, deposit: least - 1n });
    expect(rules(lossy)).toEqual(['product-amount']);
    expect(lossy.violations[0]!.message).toContain(`at least ${least} must reach it`);
    expect(rules(await judge(kp, { ...HONEST, feeBps: 20 }))).toEqual(['product-fee']);
    expect((await judge(kp, HONEST)).violations).toEqual([]);
  });

  it('refuses a route taking another token besides, a second route, a route into the deposit\'s own mint, and a swap in a sell', async () => {
    const kp = await fundedWallet(world.sim, 1_000_000_000n, [[USDC, 20_000_000n], [JUP, 3_000_000n]]);
    const jup = new PublicKey(JUP);
    const keeper = venue().keeper.publicKey;
    const other = await judge(kp, { ...HONEST, extra: (me) => ({ moves: [createAssociatedTokenAccountIdempotentInstruction(keeper, ata(keeper, jup), keeper, jup), createTransferCheckedInstruction(ata(me, jup), jup, ata(keeper, jup), me, 3_000_000n, 6)], touches: [ata(me, jup), ata(keeper, jup)] }) });
    expect(rules(other)).toEqual(expect.arrayContaining(['destination', 'token-outflow']));
    expect(rules(await judge(kp, { ...HONEST, routes: 2 }))).toEqual(expect.arrayContaining(['product-instruction']));
    expect(rules(await judge(kp, { ...HONEST, settlement: USDC_KEY, swapOut: 5_000_000n, deposit: 5_000_000n }))).toEqual(expect.arrayContaining(['product-mint']));
    // A sell (or a close or a claim) may carry no swap at all.
    const route = rawInstruction(aggregatorRouteInstruction({ authority: kp.publicKey, source: ata(kp.publicKey, USDC_KEY), destination: ata(kp.publicKey, JUPUSD), destinationMint: JUPUSD, eventAuthority: EVENT_AUTHORITY, inAmount: 1n, quotedOutAmount: 1n, slippageBps: 0, platformFeeBps: 0 }));
    const sell = predictionSellCheck({ kind: 'prediction.sell', positionPubkey: Keypair.generate().publicKey.toBase58(), contractsMicro: 1_000_000n, minPriceMicroUsd: 1n }, kp.publicKey).check([route], () => null);
    expect(sell.violations.map((v) => v.message)).toEqual(expect.arrayContaining([expect.stringContaining('only a buy may be funded by a swap')]));
  });
});
