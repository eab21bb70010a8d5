// Acceptance (issue 20) for Send behind a hostile venue: a send whose deposit goes into the stranger's own invite
// escrow, or into an invite account that exists already as the stranger's, an extra account created with the
// wallet's rent; a clawback returned to the stranger or only half to the wallet; some compiled with an address
// lookup table. Each is shown real on the simulator and refused by the executor with its rule's name, nothing
// signed, nothing moved; the honest send lands, and its clawback served with a lookup table lands too.
import { describe, expect, it } from 'vitest';
import { PublicKey, type VersionedTransaction } from '@solana/web3.js';
import { decodeInviteInfoToken, decodeSendInstruction, SEND_PROGRAM } from '../../src/jupiter/programs/send.js';
import type { Intent } from '../../src/sdk/intents.js';
import { useHostileProducts } from '../helpers/hostileProductKit.js';
import { balances, USDC } from '../helpers/sim.js';

describe('sends whose movements or accounts lie', { timeout: 120_000 }, () => {
  const kit = useHostileProducts('hostile-escrows-send');
  const { setup, productIx, simulatedGain, refused, lands, landsWithLookupTable, paysStranger, fillsTarget, intoStrangersEscrow, createsAccount } = kit;
  const chain = () => kit.sim.ctx.state.venue.chain;
  const stranger = () => kit.hostile.stranger.publicKey.toBase58();
  /** The token invite an account of the chain holds, if any. */
  const inviteAt = (address: string) => {
    const held = chain().account(new PublicKey(address));
    return held?.owner.equals(SEND_PROGRAM) ? decodeInviteInfoToken(held.data) : undefined;
  };

  it('a send into the stranger\'s invite or an invite that exists, or creating an account with the wallet\'s rent, a clawback paid elsewhere or short, are refused; the honest ones land', async () => {
    const s = await setup([[USDC, 50_000_000n]]);
    const me = s.wallet.address;
    const intent: Intent = { kind: 'send', mint: USDC, amount: 12_000_000n };
    const init = (tx: VersionedTransaction) => {
      const d = decodeSendInstruction(productIx(tx, 'send'));
      if (d?.name !== 'initializeToken') throw new Error('no initialize_token');
      return d;
    };
    /** The deposit lands in the escrow of an invite whose sender is the stranger, who may claw it back. */
    const strangersInvite = intoStrangersEscrow(12_000_000n, (data) => decodeInviteInfoToken(data)?.sender);

    await refused(s, 'send', intent, { kind: 'created-account' }, createsAccount('send'));
    await refused(s, 'send', intent, { kind: 'deposit-elsewhere' }, strangersInvite, { rules: ['destination', 'escrow-amount'] });
    await refused(s, 'send', intent, { kind: 'deposit-elsewhere' }, strangersInvite, { rules: ['destination', 'escrow-amount'], lookupTable: true });
    await refused(s, 'send', intent, { kind: 'existing-order' }, async (tx, r) => {
      // The invite the instruction names is already the stranger's: its escrow, which gets the deposit, the stranger's to claw back.
      expect(inviteAt(init(tx).accounts.inviteInfo)?.sender.toBase58()).toBe(stranger());
      await fillsTarget(12_000_000n)(tx, r);
    });
    await lands(s, intent);
    const [pending] = (await kit.world.jup.send.getPendingInvites({ address: me })).invites;

    const clawback: Intent = { kind: 'send.clawback', invitePda: pending!.invitePda };
    const usdcAccount = chain().tokenAccountsOf(me).find((a) => a.mint === USDC)!.address;
    await refused(s, 'send.clawback', clawback, { kind: 'created-account' }, createsAccount('send.clawback'));
    await refused(s, 'send.clawback', clawback, { kind: 'payout-elsewhere' }, paysStranger(12_000_000n), { rules: ['payout-destination', 'payout-short'] });
    await refused(s, 'send.clawback', clawback, { kind: 'payout-half' }, async (tx) => expect(await simulatedGain(tx, usdcAccount)).toBe(6_000_000n));
    await refused(s, 'send.clawback', clawback, { kind: 'payout-half' }, async (tx) => expect(await simulatedGain(tx, usdcAccount)).toBe(6_000_000n), { lookupTable: true });
    await landsWithLookupTable(s, 'send.clawback', clawback);
    expect((await balances(kit.sim, me)).tokens[USDC]).toBe(50_000_000n);
    expect((await kit.world.jup.send.getPendingInvites({ address: me })).invites).toEqual([]);
  });
});
