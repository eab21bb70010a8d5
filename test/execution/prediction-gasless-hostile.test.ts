// Issue 21, item 4 (prediction): the hostile venue's product attacks (hostileProducts.ts, hostileEscrowAttacks.ts) on
// gasless orders, whose fee and rent Jupiter's gas payer pays (PredictionTx.useGasless; create_order in the IDL
// layout, which the attacks rewrite). That the policy lets another account pay the fee loosens nothing else: each
// attack is shown real on the simulator and refused with its rule's name, nothing signed, nothing moved; the honest
// gasless buy and sell land, the wallet paying no lamport.
import { describe, expect, it } from 'vitest';
import { PublicKey, type VersionedTransaction } from '@solana/web3.js';
import { decodePredictionInstruction, vaultAddress } from '../../src/jupiter/programs/prediction.js';
import { decodeOrderAccount } from '../../src/jupiter/programs/predictionAccounts.js';
import { KNOWN_MINTS } from '../../src/lib/mints.js';
import type { Intent } from '../../src/sdk/intents.js';
import { useHostileProducts } from '../helpers/hostileProductKit.js';
import type { ProductKind } from '../helpers/hostileVenue.js';
import { balances, control, USDC } from '../helpers/sim.js';

const JUPUSD = KNOWN_MINTS.find((m) => m.symbol === 'JupUSD')!.mint;

describe('gasless prediction orders behind a hostile venue', { timeout: 180_000 }, () => {
  const kit = useHostileProducts('prediction-gasless-hostile');
  const { setup, productIx, simulatedGain, refused, lands, paysStranger, fillsTarget, intoStrangersEscrow, createsAccount, openMarkets } = kit;
  const desk = () => kit.sim.ctx.state.prediction;
  const chain = () => kit.sim.ctx.state.venue.chain;

  it('refuses every attack on a gasless buy and sell with its rule; the honest ones land with the gas payer paying', async () => {
    desk().tx.useGasless(true);
    try {
      const s = await setup([[USDC, 100_000_000n]]);
      const me = s.wallet.address;
      const gas = desk().tx.gasPayer.publicKey.toBase58();
      const [m, other] = await openMarkets(2);
      const buy: Extract<Intent, { kind: 'prediction.buy' }> = { kind: 'prediction.buy', marketId: m!.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 950_000n };
      const order = (tx: VersionedTransaction, product: ProductKind = 'prediction.buy') => {
        const d = decodePredictionInstruction(productIx(tx, product));
        if (d?.name !== 'createOrder') throw new Error('no create_order');
        // Every attack is on a gasless order: the gas payer still pays the fee and the rent.
        expect(tx.message.staticAccountKeys[0]!.toBase58()).toBe(gas);
        expect(d.accounts.payer).toBe(gas);
        return d;
      };

      await refused(s, 'prediction.buy', buy, { kind: 'escrow-stranger' }, async (tx, r) => {
        order(tx);
        await paysStranger(10_000_000n)(tx, r);
      });
      await refused(s, 'prediction.buy', buy, { kind: 'amount' }, async (tx) => {
        expect(order(tx).args.depositAmount).toBe(11_000_000n);
        expect(await simulatedGain(tx, order(tx).accounts.orderAta)).toBe(11_000_000n);
      });
      await refused(s, 'prediction.buy', buy, { kind: 'side' }, (tx) => expect(order(tx).args).toMatchObject({ isYes: false, isBuy: true, marketId: m!.marketId }));
      await refused(s, 'prediction.buy', buy, { kind: 'market', marketId: other!.marketId }, (tx) => expect(order(tx).args.marketId).toBe(other!.marketId));
      await refused(s, 'prediction.buy', buy, { kind: 'price-limit', microUsd: 990_000n }, (tx) => expect(order(tx).args.maxFillPriceUsd).toBeGreaterThan(buy.maxPriceMicroUsd));
      await refused(s, 'prediction.buy', buy, { kind: 'mint', mint: JUPUSD }, (tx) => expect(order(tx).accounts.settlementMint).toBe(JUPUSD));
      // The wallet, which pays no fee, would still pay an extra account's rent: refused as any other.
      await refused(s, 'prediction.buy', buy, { kind: 'created-account' }, createsAccount('prediction.buy'));
      await refused(s, 'prediction.buy', buy, { kind: 'deposit-elsewhere' }, intoStrangersEscrow(10_000_000n, (data) => decodeOrderAccount(data)?.owner), { rules: ['destination', 'escrow-amount'] });
      await refused(s, 'prediction.buy', buy, { kind: 'vault-as-order' }, async (tx, r) => {
        expect(order(tx).accounts.order).toBe(vaultAddress(new PublicKey(USDC)).address.toBase58());
        await fillsTarget(10_000_000n)(tx, r);
      }, { rules: ['product-escrow'] });
      await refused(s, 'prediction.buy', buy, { kind: 'existing-order' }, async (tx, r) => {
        const held = chain().account(new PublicKey(order(tx).accounts.order));
        expect(held && decodeOrderAccount(held.data)?.owner.toBase58()).toBe(kit.hostile.stranger.publicKey.toBase58());
        await fillsTarget(10_000_000n)(tx, r);
      }, { rules: ['product-escrow'] });

      const lamports = (await balances(kit.sim, me)).lamports;
      await lands(s, buy);
      const [bought] = (await kit.world.jup.prediction.getPredictionOrders({ ownerPubkey: me })).data;
      await control(kit.sim, '/orders/fill', { order: bought!.pubkey });
      const [position] = (await kit.world.jup.prediction.getPredictionPositions({ ownerPubkey: me })).data;

      const sell: Extract<Intent, { kind: 'prediction.sell' }> = { kind: 'prediction.sell', positionPubkey: position!.pubkey, contractsMicro: 2_000_000n, minPriceMicroUsd: 10_000n };
      await refused(s, 'prediction.sell', sell, { kind: 'amount' }, (tx) => expect(order(tx, 'prediction.sell').args).toMatchObject({ isBuy: false, contracts: 4_000_000n }));
      await refused(s, 'prediction.sell', sell, { kind: 'price-limit', microUsd: 1n }, (tx) => expect(order(tx, 'prediction.sell').args.maxFillPriceUsd).toBeLessThan(sell.minPriceMicroUsd));
      await refused(s, 'prediction.sell', sell, { kind: 'created-account' }, createsAccount('prediction.sell'));
      const { rec } = await lands(s, sell);
      expect(chain().signatureStatus(rec.signature!)!.landed!.tx!.message.staticAccountKeys[0]!.toBase58()).toBe(gas);
      expect((await balances(kit.sim, me)).lamports).toBe(lamports);
    } finally {
      desk().tx.useGasless(false);
    }
  });
});
