// Acceptance (issue 20) for prediction orders behind a hostile venue: a buy whose deposit goes into another order's
// escrow, whose order account is the program's pooled vault or an order that exists already, an extra account
// created with the wallet's rent; a close whose refund, and a claim whose payout, is paid to the stranger or only
// half to the wallet; a claim against another market's result that pays nothing; some of these compiled with an
// address lookup table. Each is shown real on the simulator and refused by the executor with its rule's name,
// nothing signed, nothing moved; the honest buy, close and claim land.
import { describe, expect, it } from 'vitest';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { decodePredictionInstruction, PREDICTION_PROGRAM, vaultAddress } from '../../src/jupiter/programs/prediction.js';
import { decodeMarketResultAccount, decodeOrderAccount } from '../../src/jupiter/programs/predictionAccounts.js';
import type { Intent } from '../../src/sdk/intents.js';
import { useHostileProducts } from '../helpers/hostileProductKit.js';
import { balances, control, USDC } from '../helpers/sim.js';

describe('prediction orders whose movements or accounts lie', { timeout: 120_000 }, () => {
  const kit = useHostileProducts('hostile-escrows-prediction');
  const { setup, productIx, simulatedGain, refused, lands, paysStranger, fillsTarget, intoStrangersEscrow, createsAccount, openMarkets } = kit;
  const chain = () => kit.sim.ctx.state.venue.chain;
  const stranger = () => kit.hostile.stranger.publicKey.toBase58();
  const usdcAccount = (owner: string) => chain().tokenAccountsOf(owner).find((a) => a.mint === USDC)!.address;
  /** The prediction order an account of the chain holds, if any. */
  const orderAt = (address: string) => {
    const held = chain().account(new PublicKey(address));
    return held?.owner.equals(PREDICTION_PROGRAM) ? decodeOrderAccount(held.data) : undefined;
  };

  it('a buy into another order\'s escrow, on the pooled vault or an order that exists, or creating an account with the wallet\'s rent, a close or claim paid elsewhere or short, a claim on another market\'s result, are refused; the honest ones land', async () => {
    const s = await setup([[USDC, 100_000_000n]]);
    const me = s.wallet.address;
    const [m, other] = await openMarkets(2);
    const buy: Intent = { kind: 'prediction.buy', marketId: m!.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 950_000n };
    const order = (tx: VersionedTransaction) => {
      const d = decodePredictionInstruction(productIx(tx, 'prediction.buy'));
      if (d?.name !== 'createOrder') throw new Error('no create_order');
      return d;
    };
    /** The deposit lands in the escrow of an order whose owner is the stranger (the instruction names the wallet's new order). */
    const strangersOrder = intoStrangersEscrow(10_000_000n, (data) => decodeOrderAccount(data)?.owner);

    await refused(s, 'prediction.buy', buy, { kind: 'created-account' }, createsAccount('prediction.buy'));
    await refused(s, 'prediction.buy', buy, { kind: 'deposit-elsewhere' }, strangersOrder, { rules: ['destination', 'escrow-amount'] });
    await refused(s, 'prediction.buy', buy, { kind: 'deposit-elsewhere' }, strangersOrder, { rules: ['destination', 'escrow-amount'], lookupTable: true });
    await refused(s, 'prediction.buy', buy, { kind: 'vault-as-order' }, async (tx, r) => {
      // The deposit would join the pooled vault, everyone's money: no order of the wallet's would hold it.
      expect(order(tx).accounts.order).toBe(vaultAddress(new PublicKey(USDC)).address.toBase58());
      await fillsTarget(10_000_000n)(tx, r);
    }, { rules: ['product-escrow'] });
    await refused(s, 'prediction.buy', buy, { kind: 'existing-order' }, async (tx, r) => {
      expect(orderAt(order(tx).accounts.order)?.owner.toBase58()).toBe(stranger());
      await fillsTarget(10_000_000n)(tx, r);
    }, { rules: ['product-escrow'] });
    await lands(s, buy);
    const [bought] = (await kit.world.jup.prediction.getPredictionOrders({ ownerPubkey: me })).data;
    await control(kit.sim, '/orders/fill', { order: bought!.pubkey });
    const [position] = (await kit.world.jup.prediction.getPredictionPositions({ ownerPubkey: me })).data;

    // An unfilled buy in the other market, closed: its deposit is refunded.
    await lands(s, { ...buy, marketId: other!.marketId, depositAmount: 6_000_000n });
    const [unfilled] = (await kit.world.jup.prediction.getPredictionOrders({ ownerPubkey: me })).data;
    const close: Intent = { kind: 'prediction.closeOrder', orderPubkey: unfilled!.pubkey };
    await refused(s, 'prediction.closeOrder', close, { kind: 'created-account' }, createsAccount('prediction.closeOrder'));
    await refused(s, 'prediction.closeOrder', close, { kind: 'payout-elsewhere' }, paysStranger(6_000_000n), { rules: ['payout-destination', 'payout-short'] });
    await refused(s, 'prediction.closeOrder', close, { kind: 'payout-elsewhere' }, paysStranger(6_000_000n), { rules: ['payout-destination', 'payout-short'], lookupTable: true });
    await refused(s, 'prediction.closeOrder', close, { kind: 'payout-half' }, async (tx) => expect(await simulatedGain(tx, usdcAccount(me))).toBe(3_000_000n));
    await lands(s, close);

    await control(kit.sim, '/prediction/resolve', { marketId: m!.marketId, result: 'yes' });
    await control(kit.sim, '/prediction/resolve', { marketId: other!.marketId, result: 'no' });
    const held = (await kit.world.jup.prediction.getPredictionPosition({ positionPubkey: position!.pubkey })).contractsMicro!;
    const claim: Intent = { kind: 'prediction.claim', positionPubkey: position!.pubkey };
    // $1 a contract: micro-contracts are USDC base units.
    await refused(s, 'prediction.claim', claim, { kind: 'payout-elsewhere' }, paysStranger(held), { rules: ['payout-destination', 'payout-short'] });
    await refused(s, 'prediction.claim', claim, { kind: 'payout-half' }, async (tx) => expect(await simulatedGain(tx, usdcAccount(me))).toBe(held / 2n));
    await refused(s, 'prediction.claim', claim, { kind: 'other-result', marketId: other!.marketId }, async (tx, r) => {
      // The result named is the other market's, where NO won: the claim of a winning YES position pays nothing.
      const d = decodePredictionInstruction(productIx(tx, 'prediction.claim'));
      const result = d?.name === 'claimPayout' ? decodeMarketResultAccount(chain().account(new PublicKey(d.accounts.marketResult))!.data) : undefined;
      expect(result).toMatchObject({ marketId: other!.marketId, outcome: 'no' });
      expect(await simulatedGain(VersionedTransaction.deserialize(Buffer.from(r.honest!, 'base64')), usdcAccount(me))).toBe(held);
      expect(await simulatedGain(tx, usdcAccount(me))).toBe(0n);
    });
    await refused(s, 'prediction.claim', claim, { kind: 'created-account' }, createsAccount('prediction.claim'));
    const usdc = (await balances(kit.sim, me)).tokens[USDC]!;
    await lands(s, claim);
    expect((await balances(kit.sim, me)).tokens[USDC]! - usdc).toBe(held);
  });
});
