// Issue 21, item 4 (lend): the Earn program's bounded variants, depositWithMinAmountOut, mintWithMaxAssets,
// withdrawWithMaxSharesBurn and redeemWithMinAmountOut, served by the simulator (LendDesk.useBoundedVariants) and
// carried out by the real executor. Honest ones land, their bound decoded from the landed transaction; a bound looser
// than the intent and the lending account's exchange price allow is refused (product-price-limit), and so are the
// hostile venue's rewrites of a bounded variant (another amount, shares or payout elsewhere), nothing signed or moved.
import { afterEach, describe, expect, it } from 'vitest';
import { PublicKey, TransactionMessage } from '@solana/web3.js';
import { LEND_RATE_BOUND_BPS } from '../../src/execution/productGuard/lend.js';
import { decodeLendInstruction, decodeLendingAccount, EXCHANGE_PRICE_PRECISION, LEND_PROGRAM, marketAddresses, type LendInstruction } from '../../src/jupiter/programs/lend.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import type { Intent } from '../../src/sdk/intents.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import type { WalletExecutor } from '../helpers/executorKit.js';
import { useHostileProducts } from '../helpers/hostileProductKit.js';
import { balances, control, USDC } from '../helpers/sim.js';

const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';

describe('lend bounded variants through the executor', { timeout: 120_000 }, () => {
  const kit = useHostileProducts('lend-variants');
  const { setup, lands, refused, holdings, paysStranger, simulatedGain, productIx } = kit;
  const desk = () => kit.sim.ctx.state.lend;
  const chain = () => kit.sim.ctx.state.venue.chain;
  afterEach(() => desk().useBoundedVariants(null));

  /** The Earn instruction of the transaction that landed under `signature`, decoded. */
  const landedIx = (signature: string): Exclude<LendInstruction, { name: 'other' }> => {
    const tx = chain().signatureStatus(signature)?.landed?.tx;
    expect(tx).toBeDefined();
    const ix = TransactionMessage.decompile(tx!.message).instructions.find((i) => i.programId.equals(LEND_PROGRAM));
    const d = ix && decodeLendInstruction(rawInstruction(ix));
    if (!d || d.name === 'other') throw new Error('no Earn user instruction landed');
    return d;
  };
  /** The USDC market's exchange price as its `lending` account holds it now. */
  const price = (): bigint => {
    const lending = chain().account(marketAddresses(new PublicKey(USDC), new PublicKey(PROGRAM_IDS.splToken)).lending);
    return decodeLendingAccount(lending!.data)!.tokenExchangePrice;
  };
  /** An intent the guard refuses with `rule` (message containing `says`), nothing signed and nothing moved. */
  const refusedWith = async (s: WalletExecutor, intent: Intent, rule: string, says: string) => {
    const before = await holdings(s);
    const { result, rec } = await s.run(intent);
    expect(result).toEqual({ state: 'rejected' });
    expect(rec.error?.code).toBe('GUARD_REFUSED');
    expect(rec.error?.message).toContain(`${rule}: `);
    expect(rec.error?.message).toContain(says);
    expect(rec.signature).toBeNull();
    expect(await holdings(s)).toEqual(before);
  };
  /** A wallet with USDC deposited, after 90 days of interest: a share is worth more than a base unit. */
  const depositor = async (usdc: bigint, deposit: bigint) => {
    const s = await setup([[USDC, usdc]]);
    await lands(s, { kind: 'lend.deposit', asset: USDC, amount: deposit });
    await control(kit.sim, '/clock', { advanceMs: 90 * 86_400_000 });
    return s;
  };

  it('lands each bounded variant, its bound held to the exchange price, with the venue exact or 10 bps looser', async () => {
    const s = await depositor(200_000_000n, 50_000_000n);
    const me = s.wallet.address;
    for (const slippageBps of [0, 10]) {
      desk().useBoundedVariants({ slippageBps });
      const shares0 = (await balances(kit.sim, me)).tokens[JL_USDC]!;
      const dep = landedIx((await lands(s, { kind: 'lend.deposit', asset: USDC, amount: 20_000_000n })).rec.signature!);
      const minted = (await balances(kit.sim, me)).tokens[JL_USDC]! - shares0;
      expect(dep).toMatchObject({ name: 'deposit', idlName: 'depositWithMinAmountOut', amount: 20_000_000n, bound: { arg: 'minAmountOut', value: (minted * BigInt(10_000 - slippageBps)) / 10_000n } });
      expect(minted).toBeLessThan(20_000_000n);

      const usdc0 = (await balances(kit.sim, me)).tokens[USDC]!;
      const mint = landedIx((await lands(s, { kind: 'lend.mint', asset: USDC, shares: 5_000_000n, maxAmount: 6_000_000n })).rec.signature!);
      const paid = usdc0 - (await balances(kit.sim, me)).tokens[USDC]!;
      expect(mint).toMatchObject({ name: 'mint', idlName: 'mintWithMaxAssets', amount: 5_000_000n, bound: { arg: 'maxAssets' } });
      expect(paid).toBeGreaterThan(5_000_000n);
      expect(mint.bound!.value).toBe((paid * BigInt(10_000 + slippageBps) + 9_999n) / 10_000n);

      const jl0 = (await balances(kit.sim, me)).tokens[JL_USDC]!;
      const wd = landedIx((await lands(s, { kind: 'lend.withdraw', asset: USDC, amount: 7_000_000n })).rec.signature!);
      const burnt = jl0 - (await balances(kit.sim, me)).tokens[JL_USDC]!;
      expect(wd).toMatchObject({ name: 'withdraw', idlName: 'withdrawWithMaxSharesBurn', amount: 7_000_000n, bound: { arg: 'maxSharesBurn', value: (burnt * BigInt(10_000 + slippageBps) + 9_999n) / 10_000n } });

      const usdc1 = (await balances(kit.sim, me)).tokens[USDC]!;
      const rd = landedIx((await lands(s, { kind: 'lend.redeem', asset: USDC, shares: 4_000_000n })).rec.signature!);
      const got = (await balances(kit.sim, me)).tokens[USDC]! - usdc1;
      expect(rd).toMatchObject({ name: 'redeem', idlName: 'redeemWithMinAmountOut', amount: 4_000_000n, bound: { arg: 'minAmountOut', value: (got * BigInt(10_000 - slippageBps)) / 10_000n } });
      expect(got).toBeGreaterThan(4_000_000n);
    }
    // Every report of the file's wallet so far had no violation.
    expect(s.reports.flatMap((r) => r.violations)).toEqual([]);
  });

  it('refuses each bounded variant whose bound is looser than the exchange price allows (the venue 1 % loose)', async () => {
    const s = await depositor(100_000_000n, 40_000_000n);
    desk().useBoundedVariants({ slippageBps: 100 });
    expect(LEND_RATE_BOUND_BPS).toBeLessThan(100n);
    await refusedWith(s, { kind: 'lend.deposit', asset: USDC, amount: 10_000_000n }, 'product-price-limit', 'minAmountOut is');
    await refusedWith(s, { kind: 'lend.mint', asset: USDC, shares: 5_000_000n, maxAmount: 9_000_000n }, 'product-price-limit', 'maxAssets is');
    await refusedWith(s, { kind: 'lend.withdraw', asset: USDC, amount: 5_000_000n }, 'product-price-limit', 'maxSharesBurn is');
    await refusedWith(s, { kind: 'lend.redeem', asset: USDC, shares: 5_000_000n }, 'product-price-limit', 'minAmountOut is');
  });

  it('refuses a mint whose most assets is above the intent\'s maxAmount though within the exchange price', async () => {
    const s = await depositor(100_000_000n, 40_000_000n);
    // The shares' cost at the lending account's price, rounded up: the venue asks 40 bps more (within the rate
    // bound), which the intent's maxAmount (the cost itself) does not allow.
    const cost = (5_000_000n * price() + EXCHANGE_PRICE_PRECISION - 1n) / EXCHANGE_PRICE_PRECISION;
    desk().useBoundedVariants({ slippageBps: 40 });
    await refusedWith(s, { kind: 'lend.mint', asset: USDC, shares: 5_000_000n, maxAmount: cost + 1n }, 'product-price-limit', `intent's maxAmount ${cost + 1n}`);
    desk().useBoundedVariants({ slippageBps: 0 });
    await lands(s, { kind: 'lend.mint', asset: USDC, shares: 5_000_000n, maxAmount: cost + 1n });
  });

  it('refuses the hostile venue\'s bounded variants of another amount, shares minted elsewhere or the asset paid elsewhere', async () => {
    const s = await depositor(150_000_000n, 60_000_000n);
    const me = s.wallet.address;
    desk().useBoundedVariants({ slippageBps: 0 });
    const bounded = (product: 'lend.mint' | 'lend.deposit' | 'lend.withdraw' | 'lend.redeem', idlName: string) => (tx: Parameters<typeof productIx>[0]) => {
      const d = decodeLendInstruction(productIx(tx, product));
      expect(d).toMatchObject({ idlName });
      return d as Exclude<LendInstruction, { name: 'other' }>;
    };
    await refused(s, 'lend.mint', { kind: 'lend.mint', asset: USDC, shares: 10_000_000n, maxAmount: 12_000_000n }, { kind: 'amount' }, (tx) => {
      expect(bounded('lend.mint', 'mintWithMaxAssets')(tx)).toMatchObject({ amount: 11_000_000n, bound: { arg: 'maxAssets' } });
    });
    await refused(s, 'lend.redeem', { kind: 'lend.redeem', asset: USDC, shares: 8_000_000n }, { kind: 'amount' }, (tx) => {
      expect(bounded('lend.redeem', 'redeemWithMinAmountOut')(tx)).toMatchObject({ amount: 8_800_000n });
    });
    await refused(s, 'lend.deposit', { kind: 'lend.deposit', asset: USDC, amount: 20_000_000n }, { kind: 'shares-elsewhere' }, async (tx, r) => {
      bounded('lend.deposit', 'depositWithMinAmountOut')(tx);
      const mine = chain().tokenAccountsOf(me).find((a) => a.mint === JL_USDC)!.address;
      expect(await simulatedGain(tx, mine)).toBe(0n);
      expect(r.strangerAccount).toBeDefined();
      expect(await simulatedGain(tx, r.strangerAccount!)).toBeGreaterThan(0n);
    });
    await refused(s, 'lend.withdraw', { kind: 'lend.withdraw', asset: USDC, amount: 9_000_000n }, { kind: 'payout-elsewhere' }, async (tx, r) => {
      bounded('lend.withdraw', 'withdrawWithMaxSharesBurn')(tx);
      await paysStranger(9_000_000n)(tx, r);
    }, { rules: ['payout-destination', 'payout-short'] });
    await refused(s, 'lend.redeem', { kind: 'lend.redeem', asset: USDC, shares: 6_000_000n }, { kind: 'payout-stranger' }, (tx) => {
      bounded('lend.redeem', 'redeemWithMinAmountOut')(tx);
    });
  });
});
