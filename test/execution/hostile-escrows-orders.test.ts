// Acceptance (issue 20) for limit and recurring orders behind a hostile venue: the product instruction honest, or
// its terms right, but the money beside it or the accounts it names lie. An extra account created with the
// wallet's rent, the deposit put into the stranger's own order escrow, a new order on the wallet's open order, an
// order whose payer, output token program or fee account is another's, a cancel's refund paid to the stranger or
// half of it, a cancel with a second one batched in, and the same lies compiled with an address lookup table. Each
// is shown real on the simulator and refused by the executor with its rule's name, nothing signed, nothing moved;
// the honest orders and cancels land (one cancel served with a lookup table).
import { describe, expect, it } from 'vitest';
import { PublicKey, type VersionedTransaction } from '@solana/web3.js';
import { decodeDcaAccount, decodeRecurringInstruction } from '../../src/jupiter/programs/recurring.js';
import { decodeOrderAccount, decodeTriggerInstruction, TRIGGER_PROGRAM } from '../../src/jupiter/programs/trigger.js';
import type { Intent } from '../../src/sdk/intents.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { instructionsWithTables } from '../helpers/hostileInstructions.js';
import { useHostileProducts } from '../helpers/hostileProductKit.js';
import { waitUntil } from '../helpers/e2e.js';
import { balances, SOL, USDC } from '../helpers/sim.js';

describe('limit and recurring orders whose movements or accounts lie', { timeout: 120_000 }, () => {
  const kit = useHostileProducts('hostile-escrows-orders');
  const { setup, productIx, simulatedGain, refused, lands, landsWithLookupTable, paysStranger, fillsTarget, intoStrangersEscrow, createsAccount } = kit;
  const stranger = () => kit.hostile.stranger.publicKey.toBase58();
  const chain = () => kit.sim.ctx.state.venue.chain;
  const usdcAccount = (owner: string) => chain().tokenAccountsOf(owner).find((a) => a.mint === USDC)!.address;

  it('limit orders: an account created with the wallet\'s rent, a deposit into the stranger\'s order, a new order on an open one, another payer, token program or fee account, a refund paid elsewhere or short, a second cancel are refused; the honest ones land', async () => {
    const s = await setup([[USDC, 200_000_000n]]);
    // Limits far above the market: the keeper never fills them.
    const first: Extract<Intent, { kind: 'trigger.create' }> = { kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 20_000_000n, takingAmount: 2_000_000_000n };
    const opened = String((await lands(s, first)).rec.quote?.order);
    const intent = { ...first, takingAmount: 3_000_000_000n };
    const terms = (tx: VersionedTransaction) => {
      const d = decodeTriggerInstruction(productIx(tx, 'trigger.create'));
      if (d?.name !== 'initializeOrder') throw new Error('no initialize_order');
      return d;
    };
    /** The deposit would land in the escrow of an order whose maker is the stranger. */
    const strangersOrder = intoStrangersEscrow(20_000_000n, (data) => decodeOrderAccount(data)?.maker);

    await refused(s, 'trigger.create', intent, { kind: 'created-account' }, createsAccount('trigger.create'));
    await refused(s, 'trigger.create', intent, { kind: 'deposit-elsewhere' }, strangersOrder, { rules: ['destination', 'escrow-amount'] });
    await refused(s, 'trigger.create', intent, { kind: 'deposit-elsewhere' }, strangersOrder, { rules: ['destination', 'escrow-amount'], lookupTable: true });
    await refused(s, 'trigger.create', intent, { kind: 'existing-order', order: opened }, async (tx, r) => {
      // The deposit tops up the first order, which sells at its own price (2 SOL for 20 USDC), not the intent's.
      expect(terms(tx).accounts.order).toBe(opened);
      expect(decodeOrderAccount(chain().account(new PublicKey(opened))!.data)?.takingAmount).toBe(2_000_000_000n);
      await fillsTarget(20_000_000n)(tx, r);
    });
    await refused(s, 'trigger.create', intent, { kind: 'order-payer' }, (tx) => expect(terms(tx).accounts.payer).toBe(stranger()));
    // A token program that does not own the mint: the program would move (or pay out) the order's tokens through it.
    await refused(s, 'trigger.create', intent, { kind: 'token-program', side: 'input' }, (tx) => {
      expect(terms(tx).accounts.inputTokenProgram).toBe(PROGRAM_IDS.token2022);
      expect(chain().account(new PublicKey(USDC))?.owner.toBase58()).toBe(PROGRAM_IDS.splToken);
    });
    await refused(s, 'trigger.create', intent, { kind: 'token-program', side: 'output' }, (tx) => {
      expect(terms(tx).accounts.outputTokenProgram).toBe(PROGRAM_IDS.token2022);
      expect(chain().account(new PublicKey(SOL))?.owner.toBase58()).toBe(PROGRAM_IDS.splToken);
    });
    await refused(s, 'trigger.create', intent, { kind: 'fee-account' }, (tx, r) => {
      expect(terms(tx).accounts.feeAccount).toBe(r.strangerAccount);
      expect(chain().tokenAccount(new PublicKey(r.strangerAccount!))?.owner).toBe(stranger());
    });
    const placed = String((await lands(s, intent)).rec.quote?.order);

    const cancel: Intent = { kind: 'trigger.cancel', order: placed };
    const cancels = (tx: VersionedTransaction) => instructionsWithTables(kit.sim.ctx.state.venue, tx).filter((ix) => ix.programId.equals(TRIGGER_PROGRAM));
    await refused(s, 'trigger.cancel', cancel, { kind: 'created-account' }, createsAccount('trigger.cancel'));
    await refused(s, 'trigger.cancel', cancel, { kind: 'payout-elsewhere' }, paysStranger(20_000_000n), { rules: ['payout-destination', 'payout-short'] });
    await refused(s, 'trigger.cancel', cancel, { kind: 'payout-elsewhere' }, paysStranger(20_000_000n), { rules: ['payout-destination', 'payout-short'], lookupTable: true });
    await refused(s, 'trigger.cancel', cancel, { kind: 'payout-half' }, async (tx) => expect(await simulatedGain(tx, usdcAccount(s.wallet.address))).toBe(10_000_000n));
    // Batched: the wallet's other order cancelled too (both refunds arrive), or the stranger's.
    await refused(s, 'trigger.cancel', cancel, { kind: 'second-cancel', order: opened }, async (tx) => {
      expect(cancels(tx)).toHaveLength(2);
      expect(await simulatedGain(tx, usdcAccount(s.wallet.address))).toBe(40_000_000n);
    });
    await refused(s, 'trigger.cancel', cancel, { kind: 'second-cancel' }, async (tx, r) => {
      expect(cancels(tx).map((ix) => ix.keys[1]!.pubkey.toBase58())).toEqual([s.wallet.address, stranger()]);
      expect(await simulatedGain(tx, r.target!)).toBe(-5_000_000n);
    });
    await lands(s, cancel);
    // The honest cancel of the first order, compiled with a lookup table: the keeper's co-signature still comes.
    await landsWithLookupTable(s, 'trigger.cancel', { kind: 'trigger.cancel', order: opened });
    expect((await balances(kit.sim, s.wallet.address)).tokens[USDC]).toBe(200_000_000n);
  });

  it('recurring orders: an account created with the wallet\'s rent, a deposit into the stranger\'s order, a new order on an open one, a refund paid elsewhere or short are refused; the honest ones land', async () => {
    const s = await setup([[USDC, 1_000_000_000n]]);
    const intent: Intent = { kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 200_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 };
    const open = async () => (await kit.world.jup.recurring.getOrders({ user: s.wallet.address, orderStatus: 'active', recurringType: 'time' })).orders;
    // The venue's keeper buys an order's first slice at once: the proofs below read escrows once it has.
    const sliced = (n: number) => waitUntil(`${n} first slices bought`, async () => (await open()).filter((o) => o.rawInUsed === 100_000_000n).length === n, 30_000);
    await lands(s, intent);
    await sliced(1);
    const [first] = await open();
    const terms = (tx: VersionedTransaction) => {
      const d = decodeRecurringInstruction(productIx(tx, 'recurring.create'));
      if (d?.name !== 'openDcaV2') throw new Error('no openDcaV2');
      return d;
    };
    const strangersOrder = intoStrangersEscrow(200_000_000n, (data) => decodeDcaAccount(data)?.user);

    await refused(s, 'recurring.create', intent, { kind: 'created-account' }, createsAccount('recurring.create'));
    await refused(s, 'recurring.create', intent, { kind: 'deposit-elsewhere' }, strangersOrder, { rules: ['destination', 'escrow-amount'] });
    await refused(s, 'recurring.create', intent, { kind: 'deposit-elsewhere' }, strangersOrder, { rules: ['destination', 'escrow-amount'], lookupTable: true });
    await refused(s, 'recurring.create', intent, { kind: 'existing-order', order: first!.orderKey }, async (tx, r) => {
      expect(terms(tx).accounts.dca).toBe(first!.orderKey);
      await fillsTarget(200_000_000n)(tx, r);
    });
    await lands(s, intent);
    await sliced(2);
    const second = (await open()).find((o) => o.orderKey !== first!.orderKey)!;

    const cancel: Intent = { kind: 'recurring.cancel', order: second.orderKey };
    await refused(s, 'recurring.cancel', cancel, { kind: 'created-account' }, createsAccount('recurring.cancel'));
    await refused(s, 'recurring.cancel', cancel, { kind: 'payout-elsewhere' }, paysStranger(100_000_000n), { rules: ['payout-destination', 'payout-short'] });
    await refused(s, 'recurring.cancel', cancel, { kind: 'payout-half' }, async (tx) => expect(await simulatedGain(tx, usdcAccount(s.wallet.address))).toBe(50_000_000n));
    await refused(s, 'recurring.cancel', cancel, { kind: 'payout-half' }, async (tx) => expect(await simulatedGain(tx, usdcAccount(s.wallet.address))).toBe(50_000_000n), { lookupTable: true });
    await lands(s, cancel);
    expect((await balances(kit.sim, s.wallet.address)).tokens[USDC]).toBe(700_000_000n);
  });
});
