// The guard's static rules on Ultra's real routes, on the real JupiterZ transaction of Jupiter's docs (DOCS
// `ultra/response.mdx`, JupiterZ tab, jup-ag/docs 1dda348d): its market maker CDg3bPoM… is the fee payer and first
// signer, the taker GpLjUnj5… the second, and the order engine's fill carries the quote's terms and expiry.
import { describe, expect, it } from 'vitest';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { decodeFill, isFill } from '../../src/jupiter/ultra/orderEngine.js';
import { decodeMessage } from '../../src/solana/guardDecode.js';
import { checkStatic, walletCharged } from '../../src/solana/guardRules.js';
import type { ExpiryCheck, GuardPolicy, GuardViolation } from '../../src/solana/guardTypes.js';
import { allowedProgramsFor, PROGRAM_IDS } from '../../src/solana/programs.js';

/** The RFQ order's `transaction` field in DOCS `ultra/response.mdx` (a real mainnet RFQ transaction, unsigned). */
const DOCS_RFQ_TX = 'AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAIABgymr6yEAmkOIXpp3AcyvWL/QB2KoDZDEZAXeMYvfP7cver/6dWfRh5QZq1pS2FU/a5CQmMX/HcgLK4+zaeSlI5cDiUHiMuOTEfv/7RvoyR8p3lT/6Mq87vOJ1wZbQZg8PAPZvgVNXGQR4l/GibNBPjRJtllQ2kqGDcrpjCUaFKkdTAkgVB1V0ZN+ftspt1cSBk+wVMQVrs4JNQFQwBgW9GZb0ATunJXk0LCp0FmKQwOT7qwHHla5KAlTyiUhgcOiwEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMGRm/lIRcy/+ytunLDm+e8jOW7xfcSayxDmzpAAAAABpuIV/6rgYT7aH9jRhjANdrEOdwa6ztVmKDwAAAAAAEG3fbh12Whk9nL4UbO63msHLSF7V9bN5E6jPWFfv8AqUpYSftyo7vpH9xbDmpX9jxaHLRbIGem7Qys02OVyKECxvp6877brTo9ZfNqq8l0MbG75MLS9uDkfKYCA0UvXWGJKbAQWdHOsOJGn5YdWJhd2PXDdDG9WzYvCihrfITlwwMHAAkDDRoAAAAAAAAHAAUC4JAAAAoMAQAFAwoCCwkICQYEI6hgt6NcCiigAOH1BQAAAAAy3W4bAAAAACoW0mgAAAAAAgAAAA==';
const MAKER = 'CDg3bPoM21fSXEzrXWHWyJR33JHX6xaYboq5p7s4uo48';
const TAKER = 'GpLjUnj5q8V6jkaaT7q26rQ4hzn7KYoebLRWfk16hTwh';
/** The order's `expireAt` field: the same as the fill's expire_at. */
const EXPIRE_AT = 1_758_598_698n;

const tx = VersionedTransaction.deserialize(Buffer.from(DOCS_RFQ_TX, 'base64'));
const decoded = decodeMessage(tx.message, []);

const fillExpiry = (latest: bigint): ExpiryCheck => ({
  latest,
  source: 'test',
  read: (ixs) => ixs.filter((ix) => ix.programId === PROGRAM_IDS.jupiterOrderEngine).map((ix) => decodeFill(ix).expireAt),
});

function policy(extra: Partial<GuardPolicy> = {}): GuardPolicy {
  return { wallet: new PublicKey(TAKER), area: 'ultra', allowedPrograms: allowedProgramsFor('ultra'), coSigners: new Set(), maxPriorityFeeLamports: 1_000_000n, spend: { kind: 'nothing' }, mayUnwrapSol: true, allowToken2022Mints: new Set(), ...extra };
}

function staticRules(p: GuardPolicy, d = decoded): GuardViolation[] {
  const out: GuardViolation[] = [];
  checkStatic(d, p, TAKER, out);
  return out;
}

describe('the real JupiterZ transaction of Jupiter\'s docs', () => {
  it('decodes as the maker paying and signing first, the taker second, and a fill of 100 USDC for 460,250,418 lamports', () => {
    expect(decoded.feePayer).toBe(MAKER);
    expect(decoded.signers).toEqual([MAKER, TAKER]);
    expect(decoded.programs).toEqual([PROGRAM_IDS.computeBudget, PROGRAM_IDS.jupiterOrderEngine]);
    const fill = decodeFill(decoded.instructions.find(isFill)!);
    expect(fill).toMatchObject({ inputAmount: 100_000_000n, outputAmount: 460_250_418n, expireAt: EXPIRE_AT, feeBps: 2, exactOut: false });
    expect(fill.accounts).toMatchObject({ taker: TAKER, maker: MAKER, takerOutputMintTokenAccount: PROGRAM_IDS.jupiterOrderEngine, inputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', outputMint: 'So11111111111111111111111111111111111111112' });
  });

  describe('when the policy allows another fee payer (Ultra\'s routes)', () => {
    it('passes the static rules, and the wallet is charged none of the fees', () => {
      expect(staticRules(policy({ sponsoredFees: true, expiry: fillExpiry(EXPIRE_AT) }))).toEqual([]);
      expect(walletCharged(decoded)).toMatchObject({ baseFeeLamports: 0n, priorityFeeLamports: 0n, feeLamports: 0n });
      expect(decoded.baseFeeLamports).toBe(10_000n);
    });

    it('refuses a fill that stays landable past the bound (quote-expiry)', () => {
      const v = staticRules(policy({ sponsoredFees: true, expiry: fillExpiry(EXPIRE_AT - 1n) }));
      expect(v.map((x) => x.rule)).toEqual(['quote-expiry']);
      expect(v[0]!.message).toContain('2025-09-23T03:38:18.000Z');
    });

    it('refuses it when the wallet is not one of its signers', () => {
      const other = new PublicKey('11111111111111111111111111111112');
      const out: GuardViolation[] = [];
      checkStatic(decoded, policy({ wallet: other, sponsoredFees: true }), other.toBase58(), out);
      expect(out.map((x) => x.rule)).toEqual(['signer', 'signer']);
      expect(out[0]!.message).toContain('is not a required signer');
    });

    it('refuses a third signer that is neither the fee payer nor declared', () => {
      const stranger = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
      const v = staticRules(policy({ sponsoredFees: true }), { ...decoded, signers: [...decoded.signers, stranger] });
      expect(v.map((x) => x.rule)).toEqual(['signer']);
      expect(staticRules(policy({ sponsoredFees: true, coSigners: new Set([stranger]) }), { ...decoded, signers: [...decoded.signers, stranger] })).toEqual([]);
    });
  });

  describe('when the policy does not allow another fee payer (every area but Ultra)', () => {
    it('refuses the market maker as fee payer, and as a signer', () => {
      expect(staticRules(policy()).map((x) => x.rule)).toEqual(['fee-payer', 'signer']);
    });
  });
});
