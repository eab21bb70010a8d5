// Acceptance (issue 20) for Lend Earn behind a hostile venue: deposits and mints whose instruction is honest but
// whose shares are minted to the stranger or only half to the wallet, withdrawals and redemptions whose asset is
// paid to the stranger or only half to the wallet, an extra account created with the wallet's rent, mints and
// redemptions of other share amounts than the intent's, and some of these compiled with an address lookup table.
// Each is shown real on the simulator and refused by the executor with its rule's name, nothing signed, nothing
// moved; the honest operations of each kind land, a deposit among them served with a lookup table.
import { describe, expect, it } from 'vitest';
import { VersionedTransaction } from '@solana/web3.js';
import { decodeLendInstruction } from '../../src/jupiter/programs/lend.js';
import type { Intent } from '../../src/sdk/intents.js';
import type { ProductAttackRecord, ProductKind } from '../helpers/hostileVenue.js';
import { useHostileProducts, type Proof } from '../helpers/hostileProductKit.js';
import { balances, control, USDC } from '../helpers/sim.js';

const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';

describe('lend operations whose movements lie', { timeout: 120_000 }, () => {
  const kit = useHostileProducts('hostile-escrows-lend');
  const { setup, productIx, simulatedGain, refused, lands, landsWithLookupTable, paysStranger, createsAccount } = kit;
  const chain = () => kit.sim.ctx.state.venue.chain;
  const accountOf = (owner: string, mint: string) => chain().tokenAccountsOf(owner).find((a) => a.mint === mint)?.address;
  const honest = (r: ProductAttackRecord) => VersionedTransaction.deserialize(Buffer.from(r.honest!, 'base64'));
  const amountOf = (tx: VersionedTransaction, product: ProductKind) => {
    const d = decodeLendInstruction(productIx(tx, product));
    if (!d || d.name === 'other') throw new Error(`no lend instruction in the ${product}`);
    return d;
  };

  /** The wallet's account of `mint` gains half of what the honest transaction pays it (the instruction still names it). */
  const halfOf = (owner: string, mint: string): Proof => async (tx, r) => {
    const account = accountOf(owner, mint);
    expect(account).toBeDefined();
    const full = await simulatedGain(honest(r), account!);
    expect(full).toBeGreaterThan(0n);
    expect(await simulatedGain(tx, account!)).toBe(full / 2n);
  };
  /** The stranger's share account gains what the honest transaction mints the wallet, which gets none. */
  const sharesToStranger = (owner: string): Proof => async (tx, r) => {
    const mine = accountOf(owner, JL_USDC)!;
    const shares = await simulatedGain(honest(r), mine);
    expect(shares).toBeGreaterThan(0n);
    if (r.product === 'lend.deposit') expect(shares).toBeLessThan(40_000_000n);
    await paysStranger(shares)(tx, r);
    expect(await simulatedGain(tx, mine)).toBe(0n);
  };

  it('deposits and mints whose shares go elsewhere or fall short, and an account created with the wallet\'s rent, are refused; the honest ones land, one with a lookup table', async () => {
    const s = await setup([[USDC, 300_000_000n]]);
    const me = s.wallet.address;
    // A first deposit opens the wallet's share account, which the proofs below read; then interest accrues, so that
    // a share is worth more than a base unit of USDC and the payouts are held to the lending account's exchange price.
    await lands(s, { kind: 'lend.deposit', asset: USDC, amount: 10_000_000n });
    await control(kit.sim, '/clock', { advanceMs: 90 * 86_400_000 });
    const deposit: Intent = { kind: 'lend.deposit', asset: USDC, amount: 40_000_000n };
    await refused(s, 'lend.deposit', deposit, { kind: 'created-account' }, createsAccount('lend.deposit'));
    await refused(s, 'lend.deposit', deposit, { kind: 'shares-elsewhere' }, sharesToStranger(me));
    await refused(s, 'lend.deposit', deposit, { kind: 'shares-elsewhere' }, sharesToStranger(me), { lookupTable: true });
    await refused(s, 'lend.deposit', deposit, { kind: 'shares-half' }, halfOf(me, JL_USDC));
    const shares = (await balances(kit.sim, me)).tokens[JL_USDC]!;
    const { run } = await landsWithLookupTable(s, 'lend.deposit', deposit);
    expect(run.rec.signature).toBeTruthy();
    expect((await balances(kit.sim, me)).tokens[JL_USDC]! - shares).toBeGreaterThan(39_000_000n);

    const mint: Intent = { kind: 'lend.mint', asset: USDC, shares: 10_000_000n, maxAmount: 12_000_000n };
    await refused(s, 'lend.mint', mint, { kind: 'amount' }, (tx) => expect(amountOf(tx, 'lend.mint')).toMatchObject({ name: 'mint', amount: 11_000_000n }));
    await refused(s, 'lend.mint', mint, { kind: 'created-account' }, createsAccount('lend.mint'));
    await refused(s, 'lend.mint', mint, { kind: 'shares-elsewhere' }, sharesToStranger(me));
    await refused(s, 'lend.mint', mint, { kind: 'share-stranger' }, sharesToStranger(me));
    await refused(s, 'lend.mint', mint, { kind: 'shares-half' }, halfOf(me, JL_USDC));
    const before = (await balances(kit.sim, me)).tokens[JL_USDC]!;
    await lands(s, mint);
    expect((await balances(kit.sim, me)).tokens[JL_USDC]! - before).toBe(10_000_000n);
  });

  it('withdrawals and redemptions paid elsewhere or short, of other amounts, or with an account created with the wallet\'s rent, are refused; the honest ones land', async () => {
    const s = await setup([[USDC, 100_000_000n]]);
    const me = s.wallet.address;
    await lands(s, { kind: 'lend.deposit', asset: USDC, amount: 60_000_000n });
    await control(kit.sim, '/clock', { advanceMs: 90 * 86_400_000 });

    const withdraw: Intent = { kind: 'lend.withdraw', asset: USDC, amount: 15_000_000n };
    await refused(s, 'lend.withdraw', withdraw, { kind: 'created-account' }, createsAccount('lend.withdraw'));
    await refused(s, 'lend.withdraw', withdraw, { kind: 'payout-elsewhere' }, paysStranger(15_000_000n), { rules: ['payout-destination', 'payout-short'] });
    await refused(s, 'lend.withdraw', withdraw, { kind: 'payout-half' }, halfOf(me, USDC));
    await lands(s, withdraw);
    expect((await balances(kit.sim, me)).tokens[USDC]).toBe(55_000_000n);

    const redeem: Intent = { kind: 'lend.redeem', asset: USDC, shares: 8_000_000n };
    await refused(s, 'lend.redeem', redeem, { kind: 'amount' }, (tx) => expect(amountOf(tx, 'lend.redeem')).toMatchObject({ name: 'redeem', amount: 8_800_000n }));
    await refused(s, 'lend.redeem', redeem, { kind: 'created-account' }, createsAccount('lend.redeem'));
    const toStranger: Proof = async (tx, r) => {
      const assets = await simulatedGain(honest(r), accountOf(me, USDC)!);
      expect(assets).toBeGreaterThan(8_000_000n);
      await paysStranger(assets)(tx, r);
    };
    await refused(s, 'lend.redeem', redeem, { kind: 'payout-elsewhere' }, toStranger, { rules: ['payout-destination', 'payout-short'] });
    await refused(s, 'lend.redeem', redeem, { kind: 'payout-elsewhere' }, toStranger, { rules: ['payout-destination', 'payout-short'], lookupTable: true });
    await refused(s, 'lend.redeem', redeem, { kind: 'payout-stranger' }, toStranger);
    await refused(s, 'lend.redeem', redeem, { kind: 'payout-half' }, halfOf(me, USDC));
    const shares = (await balances(kit.sim, me)).tokens[JL_USDC]!;
    await lands(s, redeem);
    expect(shares - (await balances(kit.sim, me)).tokens[JL_USDC]!).toBe(8_000_000n);
  });
});
