import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { PublicKey } from '@solana/web3.js';
import { LimitError } from '../../src/jupiter/errors.js';
import {
  SEND_INVITE_PROGRAM_ID,
  assertInviteCode,
  deriveInvitePda,
  generateInviteCode,
  inviteKeypairFromCode,
  invitePdaFromCode,
  isInviteCode,
} from '../../src/jupiter/send/inviteCode.js';

// Computed once from the derivation in the docs and pinned: a change here means invites would no longer match.
const CODE = 'JupKeeper123';
const INVITE_SIGNER = '7wccgZQSAQMmVL4Nuhg5EW3vi8jf76bs5YBDAjnkgowv';
const INVITE_PDA = 'DD1vhzJAiFpEcvRUHjRuACSamzX1vXNJzJT9NcWmzF1y';

/** The ed25519 public key of a 32-byte seed, through node:crypto rather than @solana/web3.js. */
function nodePublicKey(seed: Buffer): string {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const spki = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' });
  return bs58.encode(spki.subarray(-32));
}

describe('the Send invite code', () => {
  describe('when deriving from a known code', () => {
    it('gives the pinned invite public key and PDA', () => {
      expect(inviteKeypairFromCode(CODE).publicKey.toBase58()).toBe(INVITE_SIGNER);
      expect(invitePdaFromCode(CODE).toBase58()).toBe(INVITE_PDA);
    });

    it('uses sha256("invite:" + code) as the ed25519 seed, as an independent ed25519 implementation agrees', () => {
      const seed = createHash('sha256').update(`invite:${CODE}`).digest();
      const keypair = inviteKeypairFromCode(CODE);
      expect(Buffer.from(keypair.secretKey.subarray(0, 32))).toEqual(seed);
      expect(Buffer.from(keypair.secretKey.subarray(32))).toEqual(keypair.publicKey.toBuffer());
      expect(nodePublicKey(seed)).toBe(INVITE_SIGNER);
    });

    it('derives the PDA from ["invite", pubkey] under the invite program, from a key or its base58', () => {
      const [expected] = PublicKey.findProgramAddressSync([Buffer.from('invite'), new PublicKey(INVITE_SIGNER).toBuffer()], SEND_INVITE_PROGRAM_ID);
      expect(SEND_INVITE_PROGRAM_ID.toBase58()).toBe('inv1tEtSwRMtM44tbvJGNiTxMvDfPVnX9StyqXfDfks');
      expect(deriveInvitePda(INVITE_SIGNER).toBase58()).toBe(expected.toBase58());
      expect(deriveInvitePda(new PublicKey(INVITE_SIGNER)).toBase58()).toBe(INVITE_PDA);
    });

    it('is stable: the same code always gives the same keys', () => {
      expect(inviteKeypairFromCode(CODE).secretKey).toEqual(inviteKeypairFromCode(CODE).secretKey);
    });
  });

  describe('when the code is malformed', () => {
    it.each([
      ['too short', 'JupKeeper12'],
      ['too long', 'JupKeeper1234'],
      ['empty', ''],
      ['holding a 0', 'JupKeeper120'],
      ['holding an O', 'JupKeeperO23'],
      ['holding an I', 'IupKeeper123'],
      ['holding an l', 'JupKeeperl23'],
      ['holding a space', 'JupKeeper 23'],
    ])('rejects a code %s with LimitError and does not echo the secret', (_what, code) => {
      expect(isInviteCode(code)).toBe(false);
      for (const derive of [assertInviteCode, inviteKeypairFromCode, invitePdaFromCode]) {
        let err: unknown;
        try {
          derive(code);
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(LimitError);
        expect((err as LimitError).rule).toBe('send.inviteCode.format');
        if (code) expect((err as LimitError).message).not.toContain(code);
      }
    });
  });

  describe('when generating codes', () => {
    it('keeps the first 12 base58 characters of 13 random bytes', () => {
      const bytes = Uint8Array.from({ length: 13 }, (_, i) => i + 1);
      expect(bs58.encode(bytes)).toBe('5sPzhL1ouhNAS9VBi');
      expect(generateInviteCode(() => bytes)).toBe('5sPzhL1ouhNA');
      expect(generateInviteCode(() => new Uint8Array(13))).toBe('111111111111');
    });

    it('asks the random source for 13 bytes', () => {
      const sizes: number[] = [];
      generateInviteCode((n) => {
        sizes.push(n);
        return new Uint8Array(n).fill(7);
      });
      expect(sizes).toEqual([13]);
      expect(() => generateInviteCode(() => new Uint8Array(12))).toThrow(RangeError);
    });

    it('makes valid, distinct codes that derive keys', () => {
      const codes = Array.from({ length: 500 }, () => generateInviteCode());
      for (const code of codes) expect(isInviteCode(code)).toBe(true);
      expect(new Set(codes).size).toBe(codes.length);
      expect(() => invitePdaFromCode(codes[0]!)).not.toThrow();
    });
  });
});
