// What the exactly-once product suite needs to know about each intent kind but swap (test/e2e/exactly-once-products*):
// how to fund a wallet for it and make what it acts on (an open order to cancel, a filled and resolved position to
// claim, an invite to claw back), the ledger kind its own transaction settles as, how the venue receives it (its
// execute path or RPC: where a lost answer is injected), and the proof that its effect happened exactly once
// (escrows, balances and the venue's own views). The table is keyed by kind: a kind added to INTENT_KINDS without an
// entry does not compile, and the suite's guard test fails at run time too.
import { expect } from 'vitest';
import type { JupiterClient } from '../../src/jupiter/client.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import { inviteCodeFor } from '../../src/execution/sendInvite.js';
import { deriveInvitePda, inviteKeypairFromCode } from '../../src/jupiter/send/inviteCode.js';
import type { Intent, IntentKind } from '../../src/sdk/intents.js';
import type { HotWallet } from '../../src/solana/wallet.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import type { IntentRecord } from '../../src/store/intents.js';
import { waitUntil } from './e2e.js';
import type { balances, LedgerTx } from './sim.js';
import { control, SOL, USDC } from './sim.js';

/** The share token of USDC's Lend Earn market in the simulator. */
export const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';

/** A wallet's lamports and token amounts by mint. */
export type Balances = Awaited<ReturnType<typeof balances>>;

/** An escrow as GET /__sim/escrows lists it. */
interface Escrow {
  address: string;
  product: string;
  authority: string;
  wallet: string;
  mint: string;
  amount: string;
}

/** What preparing a case can use: the simulator, the client, the case's wallet and its keeper's executor. */
export interface PrepKit {
  sim: RunningSimulator;
  jup: JupiterClient;
  wallet: HotWallet;
  /** Lands a prerequisite intent of the case's wallet (the keeper's executor, in the test process); its record. */
  land(intent: Intent, id?: string): Promise<IntentRecord>;
  /** The id the case's own intent will be recorded under (a send's invite derives from it). */
  intentId: string;
  /** An open prediction market quoted on both sides that no other case of this file trades. */
  freshMarket(): Promise<Market>;
}

/** What the effect check sees: the case, its balances before the scenario and now, and its landed settlement. */
export interface EffectKit {
  sim: RunningSimulator;
  jup: JupiterClient;
  owner: string;
  intent: Intent;
  rec: IntentRecord;
  /** The settlement of the intent's own transaction (exactly one, already checked). */
  landed: LedgerTx;
  before: Balances;
  now: Balances;
}

/** One intent kind's scenario. */
export interface KindScenario {
  /** The ledger kind of the intent's own transaction. */
  settlesAs: string;
  /** How the venue receives the signed transaction: its execute endpoint (a path) or RPC sendTransaction. */
  route: { execute: string } | 'rpc';
  /** Lamports and USDC the wallet starts with (enough for the intent to settle twice, were it sent twice). */
  funds: { lamports: bigint; usdc: bigint };
  /** Makes what the intent acts on and returns the intent. */
  prepare(k: PrepKit): Promise<Intent>;
  /** Fails unless the effect happened exactly once. */
  once(k: EffectKit): Promise<void>;
}

const usdc = (b: Balances) => b.tokens[USDC] ?? 0n;
const jl = (b: Balances) => b.tokens[JL_USDC] ?? 0n;
const escrowsOf = async (sim: RunningSimulator, owner: string, product: string): Promise<Escrow[]> =>
  (await control<{ escrows: Escrow[] }>(sim, '/escrows', undefined, 'GET')).escrows.filter((e) => e.wallet === owner && e.product === product && BigInt(e.amount) > 0n);
const openPredictionOrders = async (k: { jup: JupiterClient; owner: string }) => (await k.jup.prediction.getPredictionOrders({ ownerPubkey: k.owner })).data;

/** Has the venue's keeper fill one prediction order now. */
async function fill(sim: RunningSimulator, order: string): Promise<void> {
  const r = await control<{ filled: number; keeperError: string | null }>(sim, '/orders/fill', { order });
  expect(r, `the venue's keeper fills order ${order}`).toEqual({ filled: 1, keeperError: null });
}

/** Buys YES of a fresh market and has the keeper fill it; the position and its micro-contracts. */
async function filledPosition(k: PrepKit, market: Market, deposit: bigint): Promise<{ position: string; contracts: bigint }> {
  await k.land({ kind: 'prediction.buy', marketId: market.marketId, side: 'yes', depositAmount: deposit, maxPriceMicroUsd: 990_000n });
  const [order] = (await k.jup.prediction.getPredictionOrders({ ownerPubkey: k.wallet.address })).data;
  expect(order, 'the buy is open').toBeDefined();
  await fill(k.sim, order!.pubkey);
  const position = (await k.jup.prediction.getPredictionPositions({ ownerPubkey: k.wallet.address })).data.find((p) => p.marketId === market.marketId);
  const contracts = position?.contractsMicro ?? 0n;
  expect(contracts, 'the filled buy holds contracts').toBeGreaterThan(0n);
  return { position: position!.pubkey, contracts };
}

/** The one open sell order of a position, holding `contracts` micro-contracts; nothing left the wallet for it. */
async function oneSellOrder(k: EffectKit, position: string, contracts: bigint): Promise<void> {
  const orders = await openPredictionOrders(k);
  expect(orders.map((o) => [o.position, o.isBuy, o.contractsMicro ?? o.contracts * 1_000_000n]), 'one open sell order of the position').toEqual([[position, false, contracts]]);
  expect(usdc(k.now), 'a sell takes nothing from the wallet').toBe(usdc(k.before));
  expect(k.landed.inputAmount, 'a sell deposits nothing').toBeNull();
}

/** Every kind's scenario; every kind but swap (proved by the part 1 suite) must have one. */
export const KIND_SCENARIOS: { [K in Exclude<IntentKind, 'swap'>]: KindScenario } = {
  'trigger.create': {
    settlesAs: 'trigger-create',
    route: { execute: '/trigger/v1/execute' },
    funds: { lamports: 1_000_000_000n, usdc: 50_000_000n },
    // 1 SOL for $20: far from the market, so the order rests.
    prepare: () => Promise.resolve({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 20_000_000n, takingAmount: 1_000_000_000n }),
    once: async (k) => {
      expect(k.landed.inputAmount).toBe('20000000');
      expect(usdc(k.before) - usdc(k.now), 'USDC left the wallet once').toBe(20_000_000n);
      const active = (await k.jup.trigger.getOrders({ user: k.owner, orderStatus: 'active' })).orders;
      expect(active.map((o) => [o.orderKey, o.rawRemainingMakingAmount]), 'one resting order').toEqual([[k.rec.quote?.order, 20_000_000n]]);
      expect((await escrowsOf(k.sim, k.owner, 'trigger')).map((e) => e.amount), 'one escrow holds the amount').toEqual(['20000000']);
    },
  },
  'trigger.cancel': {
    settlesAs: 'trigger-cancel',
    route: { execute: '/trigger/v1/execute' },
    funds: { lamports: 1_000_000_000n, usdc: 50_000_000n },
    prepare: async (k) => {
      const placed = await k.land({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 20_000_000n, takingAmount: 1_000_000_000n });
      return { kind: 'trigger.cancel', order: placed.quote?.order as string };
    },
    once: async (k) => {
      expect(k.landed.outputAmount, 'the refund').toBe('20000000');
      expect(usdc(k.now) - usdc(k.before), 'refunded once').toBe(20_000_000n);
      expect((await k.jup.trigger.getOrders({ user: k.owner, orderStatus: 'active' })).orders).toEqual([]);
      expect(await escrowsOf(k.sim, k.owner, 'trigger')).toEqual([]);
    },
  },
  'recurring.create': {
    settlesAs: 'recurring-create',
    route: { execute: '/recurring/v1/execute' },
    funds: { lamports: 1_000_000_000n, usdc: 400_000_000n },
    prepare: () => Promise.resolve({ kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 200_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 }),
    once: async (k) => {
      expect(k.landed.inputAmount).toBe('200000000');
      expect(usdc(k.before) - usdc(k.now), 'the deposit left the wallet once').toBe(200_000_000n);
      const active = (await k.jup.recurring.getOrders({ user: k.owner, orderStatus: 'active', recurringType: 'time' })).orders;
      expect(active, 'one recurring order').toHaveLength(1);
    },
  },
  'recurring.cancel': {
    settlesAs: 'recurring-cancel',
    route: { execute: '/recurring/v1/execute' },
    funds: { lamports: 1_000_000_000n, usdc: 200_000_000n },
    prepare: async (k) => {
      await k.land({ kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 200_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 });
      const orders = () => k.jup.recurring.getOrders({ user: k.wallet.address, orderStatus: 'active', recurringType: 'time' });
      // The first slice fills at once; the cancel then returns the other half.
      await waitUntil('the first slice of the recurring order', async () => (await orders()).orders[0]?.trades.length === 1, 30_000, 25);
      return { kind: 'recurring.cancel', order: (await orders()).orders[0]!.orderKey };
    },
    once: async (k) => {
      expect(k.landed.outputAmount, 'the refund of the unfilled half').toBe('100000000');
      expect(usdc(k.now) - usdc(k.before), 'refunded once').toBe(100_000_000n);
      expect((await k.jup.recurring.getOrders({ user: k.owner, orderStatus: 'active', recurringType: 'time' })).orders).toEqual([]);
    },
  },
  'lend.deposit': {
    settlesAs: 'lend-deposit',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 100_000_000n },
    prepare: () => Promise.resolve({ kind: 'lend.deposit', asset: USDC, amount: 40_000_000n }),
    once: (k) => {
      expect(k.landed.inputAmount).toBe('40000000');
      expect(usdc(k.before) - usdc(k.now), 'deposited once').toBe(40_000_000n);
      expect(jl(k.now) - jl(k.before), 'the shares of one deposit').toBe(BigInt(k.landed.outputAmount!));
      return Promise.resolve();
    },
  },
  'lend.withdraw': {
    settlesAs: 'lend-withdraw',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 100_000_000n },
    prepare: async (k) => {
      await k.land({ kind: 'lend.deposit', asset: USDC, amount: 80_000_000n });
      return { kind: 'lend.withdraw', asset: USDC, amount: 30_000_000n };
    },
    once: (k) => {
      expect(k.landed.outputAmount).toBe('30000000');
      expect(usdc(k.now) - usdc(k.before), 'withdrawn once').toBe(30_000_000n);
      expect(jl(k.before) - jl(k.now), 'the shares of one withdrawal burnt').toBe(BigInt(k.landed.inputAmount!));
      return Promise.resolve();
    },
  },
  'lend.mint': {
    settlesAs: 'lend-deposit',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 50_000_000n },
    prepare: () => Promise.resolve({ kind: 'lend.mint', asset: USDC, shares: 10_000_000n, maxAmount: 12_000_000n }),
    once: (k) => {
      expect(k.landed.outputAmount, 'the exact shares').toBe('10000000');
      expect(jl(k.now) - jl(k.before), 'minted once').toBe(10_000_000n);
      expect(usdc(k.before) - usdc(k.now), 'paid once').toBe(BigInt(k.landed.inputAmount!));
      return Promise.resolve();
    },
  },
  'lend.redeem': {
    settlesAs: 'lend-withdraw',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 50_000_000n },
    prepare: async (k) => {
      await k.land({ kind: 'lend.deposit', asset: USDC, amount: 30_000_000n });
      return { kind: 'lend.redeem', asset: USDC, shares: 8_000_000n };
    },
    once: (k) => {
      expect(k.landed.inputAmount, 'the exact shares').toBe('8000000');
      expect(jl(k.before) - jl(k.now), 'redeemed once').toBe(8_000_000n);
      expect(usdc(k.now) - usdc(k.before), 'paid out once').toBe(BigInt(k.landed.outputAmount!));
      return Promise.resolve();
    },
  },
  'prediction.buy': {
    settlesAs: 'prediction-order',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 50_000_000n },
    prepare: async (k) => ({ kind: 'prediction.buy', marketId: (await k.freshMarket()).marketId, side: 'yes', depositAmount: 20_000_000n, maxPriceMicroUsd: 990_000n }),
    once: async (k) => {
      expect(k.landed.inputAmount).toBe('20000000');
      expect(usdc(k.before) - usdc(k.now), 'the deposit left the wallet once').toBe(20_000_000n);
      const orders = await openPredictionOrders(k);
      expect(orders.map((o) => [o.pubkey, o.isBuy]), 'one open buy').toEqual([[k.rec.quote?.order, true]]);
      expect((await escrowsOf(k.sim, k.owner, 'prediction')).map((e) => [e.authority, e.amount]), 'one order escrow holds the deposit').toEqual([[orders[0]!.pubkey, '20000000']]);
    },
  },
  'prediction.sell': {
    settlesAs: 'prediction-order',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 30_000_000n },
    prepare: async (k) => {
      const { position, contracts } = await filledPosition(k, await k.freshMarket(), 10_000_000n);
      return { kind: 'prediction.sell', positionPubkey: position, contractsMicro: (contracts / 2n / 10_000n) * 10_000n, minPriceMicroUsd: 10_000n };
    },
    once: async (k) => {
      const intent = k.intent as Extract<Intent, { kind: 'prediction.sell' }>;
      await oneSellOrder(k, intent.positionPubkey, intent.contractsMicro);
    },
  },
  'prediction.closePosition': {
    settlesAs: 'prediction-order',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 30_000_000n },
    prepare: async (k) => {
      const { position } = await filledPosition(k, await k.freshMarket(), 10_000_000n);
      return { kind: 'prediction.closePosition', positionPubkey: position, minPriceMicroUsd: 10_000n };
    },
    once: async (k) => {
      const intent = k.intent as Extract<Intent, { kind: 'prediction.closePosition' }>;
      const held = (await k.jup.prediction.getPredictionPosition({ positionPubkey: intent.positionPubkey })).contractsMicro ?? 0n;
      await oneSellOrder(k, intent.positionPubkey, held);
    },
  },
  'prediction.closeOrder': {
    settlesAs: 'prediction-close',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 30_000_000n },
    prepare: async (k) => {
      const bought = await k.land({ kind: 'prediction.buy', marketId: (await k.freshMarket()).marketId, side: 'no', depositAmount: 12_000_000n, maxPriceMicroUsd: 990_000n });
      return { kind: 'prediction.closeOrder', orderPubkey: bought.quote?.order as string };
    },
    once: async (k) => {
      expect(k.landed.outputAmount, 'the whole deposit back').toBe('12000000');
      expect(usdc(k.now) - usdc(k.before), 'refunded once').toBe(12_000_000n);
      expect(await openPredictionOrders(k)).toEqual([]);
      expect(await escrowsOf(k.sim, k.owner, 'prediction')).toEqual([]);
    },
  },
  'prediction.claim': {
    settlesAs: 'prediction-claim',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 30_000_000n },
    prepare: async (k) => {
      const market = await k.freshMarket();
      const { position } = await filledPosition(k, market, 10_000_000n);
      const resolved = await control<{ keeperError: string | null }>(k.sim, '/prediction/resolve', { marketId: market.marketId, result: 'yes' });
      expect(resolved.keeperError).toBeNull();
      return { kind: 'prediction.claim', positionPubkey: position };
    },
    once: (k) => {
      // $1 a contract: the position's micro-contracts are that many USDC base units.
      expect(BigInt(k.landed.outputAmount!), 'the payout').toBe(BigInt(k.rec.quote?.contractsMicro as string | bigint));
      expect(usdc(k.now) - usdc(k.before), 'paid once').toBe(BigInt(k.landed.outputAmount!));
      return Promise.resolve();
    },
  },
  send: {
    settlesAs: 'send-invite',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 30_000_000n },
    prepare: () => Promise.resolve({ kind: 'send', mint: USDC, amount: 12_000_000n }),
    once: async (k) => {
      expect(k.landed.inputAmount).toBe('12000000');
      expect(usdc(k.before) - usdc(k.now), 'sent once').toBe(12_000_000n);
      const invites = (await k.jup.send.getPendingInvites({ address: k.owner })).invites;
      expect(invites.map((i) => [i.amount, i.creationTx]), 'one pending invite').toEqual([[12_000_000n, k.rec.signature]]);
      expect((await escrowsOf(k.sim, k.owner, 'send')).map((e) => e.amount), 'one invite escrow holds the amount').toEqual(['12000000']);
    },
  },
  'send.clawback': {
    settlesAs: 'send-clawback',
    route: 'rpc',
    funds: { lamports: 1_000_000_000n, usdc: 30_000_000n },
    prepare: async (k) => {
      const id = `${k.intentId}.prep`;
      await k.land({ kind: 'send', mint: USDC, amount: 12_000_000n }, id);
      return { kind: 'send.clawback', invitePda: deriveInvitePda(inviteKeypairFromCode(inviteCodeFor(k.wallet, id)).publicKey).toBase58() };
    },
    once: async (k) => {
      expect(k.landed.outputAmount).toBe('12000000');
      expect(usdc(k.now) - usdc(k.before), 'clawed back once').toBe(12_000_000n);
      expect((await k.jup.send.getPendingInvites({ address: k.owner })).invites).toEqual([]);
      expect(await escrowsOf(k.sim, k.owner, 'send')).toEqual([]);
    },
  },
};

/** Every kind the suite must prove (INTENT_KINDS but swap, which the part 1 suite proves), in a stable order. */
export function productKinds(): Array<Exclude<IntentKind, 'swap'>> {
  return Object.keys(KIND_SCENARIOS) as Array<Exclude<IntentKind, 'swap'>>;
}
