import { describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import {
  claimTokenInstruction,
  clawbackTokenInstruction,
  decodeInviteInfoToken,
  decodeSendInstruction,
  expireTokenInstruction,
  initializeTokenData,
  initializeTokenInstruction,
  inviteInfoTokenData,
  invitePda,
} from '../../src/jupiter/programs/send.js';
import { bytes, disc, expectedMetas, i64, key, metas, raw, u64, u8 } from './known-answers-hand.js';

/*
 * Known answers for the Jupiter Send invite-escrow program (issue 21), assembled by hand from its published generated
 * client (a Codama client of `inviteEscrow`: instructions/{initializeToken,claimToken,clawbackToken,expireToken}.ts,
 * accounts/inviteInfoToken.ts). The program's own accounts sit at addresses jup-keeper does not derive (the escrow
 * and the token accounts come from the service), so every account here is a different hand-picked key: swapping two
 * account metas in the encoder or two names in the decoder changes what is read.
 */

const PROGRAM = new PublicKey('inv1tEtSwRMtM44tbvJGNiTxMvDfPVnX9StyqXfDfks');
const SYSTEM = new PublicKey('11111111111111111111111111111111');
const ATA_PROGRAM = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
const named = (names: readonly string[], from: number) => Object.fromEntries(names.map((n, i) => [n, key(from + i).toBase58()]));

describe('initialize_token assembled by hand', () => {
  // InitializeTokenInstructionArgs { expiry: i64, amount: u64 }: two 8-byte numbers, told apart by their values
  // (expiry 1_767_225_600 = 0x6955b900, amount 250_000_000 = 0x0ee6b280, little-endian).
  const data = bytes(disc('global', 'initialize_token'), i64(1_767_225_600n), u64(250_000_000n));
  const names = ['sender', 'inviteSigner', 'inviteInfo', 'systemProgram', 'senderTokenAccount', 'escrow', 'tokenProgram', 'mint', 'associatedTokenProgram'];

  it('is what the encoder writes, with the published accounts and flags', () => {
    expect(data.toString('hex')).toBe(`26d19632be751036${'00b9556900000000'}${'80b2e60e00000000'}`);
    expect(initializeTokenData(1_767_225_600n, 250_000_000n).toString('hex')).toBe(data.toString('hex'));
    const ix = initializeTokenInstruction({ sender: key(1), inviteSigner: key(2), inviteInfo: key(3), senderTokenAccount: key(4), escrow: key(5), tokenProgram: key(6), mint: key(7), expirySeconds: 1_767_225_600n, amount: 250_000_000n });
    expect(Buffer.from(ix.data).toString('hex')).toBe(data.toString('hex'));
    expect(metas(ix)).toEqual(expectedMetas([
      [key(1), 'sw'], [key(2), 'sw'], [key(3), '-w'], [SYSTEM, '--'], [key(4), '-w'], [key(5), '-w'], [key(6), '--'], [key(7), '--'], [ATA_PROGRAM, '--'],
    ]));
  });

  it('is what the decoder reads, each account by its name', () => {
    expect(decodeSendInstruction(raw(PROGRAM, names.map((_, i) => key(20 + i)), data))).toEqual({ name: 'initializeToken', accounts: named(names, 20), expirySeconds: 1_767_225_600n, amount: 250_000_000n });
  });
});

describe('clawback_token, claim_token and expire_token assembled by hand', () => {
  it('clawback_token: the bare discriminator; invite info, sender, sender token account, escrow, token program, ATA program, system, mint', () => {
    const ix = clawbackTokenInstruction({ inviteInfo: key(1), sender: key(2), senderTokenAccount: key(3), escrow: key(4), tokenProgram: key(5), mint: key(6) });
    expect(Buffer.from(ix.data).toString('hex')).toBe(disc('global', 'clawback_token').toString('hex'));
    expect(Buffer.from(ix.data).toString('hex')).toBe('f64a82e28959889a');
    expect(metas(ix)).toEqual(expectedMetas([[key(1), '-w'], [key(2), 'sw'], [key(3), '-w'], [key(4), '-w'], [key(5), '--'], [ATA_PROGRAM, '--'], [SYSTEM, '--'], [key(6), '-w']]));
    const names = ['inviteInfo', 'sender', 'senderTokenAccount', 'escrow', 'tokenProgram', 'associatedTokenProgram', 'systemProgram', 'mint'];
    expect(decodeSendInstruction(raw(PROGRAM, names.map((_, i) => key(30 + i)), disc('global', 'clawback_token')))).toEqual({ name: 'clawbackToken', accounts: named(names, 30) });
  });

  it('claim_token: the invite signer and the keeper sign', () => {
    const ix = claimTokenInstruction({ inviteInfo: key(1), inviteSigner: key(2), claimer: key(3), keeper: key(4), claimerTokenAccount: key(5), escrow: key(6), tokenProgram: key(7), mint: key(8) });
    expect(Buffer.from(ix.data).toString('hex')).toBe(disc('global', 'claim_token').toString('hex'));
    expect(metas(ix)).toEqual(expectedMetas([[key(1), '-w'], [key(2), 'sw'], [key(3), '-w'], [SYSTEM, '--'], [key(4), 'sw'], [key(5), '-w'], [key(6), '-w'], [key(7), '--'], [key(8), '-w'], [ATA_PROGRAM, '--']]));
    const names = ['inviteInfo', 'inviteSigner', 'claimer', 'systemProgram', 'keeper', 'claimerTokenAccount', 'escrow', 'tokenProgram', 'mint', 'associatedTokenProgram'];
    expect(decodeSendInstruction(raw(PROGRAM, names.map((_, i) => key(40 + i)), disc('global', 'claim_token')))).toEqual({ name: 'claimToken', accounts: named(names, 40) });
  });

  it('expire_token: the keeper signs, the sender does not', () => {
    const ix = expireTokenInstruction({ inviteInfo: key(1), sender: key(2), senderTokenAccount: key(3), escrow: key(4), tokenProgram: key(5), mint: key(6), keeper: key(7) });
    expect(Buffer.from(ix.data).toString('hex')).toBe(disc('global', 'expire_token').toString('hex'));
    expect(metas(ix)).toEqual(expectedMetas([[key(1), '-w'], [key(2), '-w'], [key(3), '-w'], [key(4), '-w'], [key(5), '--'], [ATA_PROGRAM, '--'], [SYSTEM, '--'], [key(6), '-w'], [key(7), 'sw']]));
    const names = ['inviteInfo', 'sender', 'senderTokenAccount', 'escrow', 'tokenProgram', 'associatedTokenProgram', 'systemProgram', 'mint', 'keeper'];
    expect(decodeSendInstruction(raw(PROGRAM, names.map((_, i) => key(50 + i)), disc('global', 'expire_token')))).toEqual({ name: 'expireToken', accounts: named(names, 50) });
  });
});

describe('the InviteInfoToken account assembled by hand', () => {
  // sender Pubkey, invite_signer Pubkey, escrow_token_account Pubkey, expiry i64, bump u8, padding [u8; 7]: 120 bytes.
  const data = bytes(disc('account', 'InviteInfoToken'), key(1).toBuffer(), key(2).toBuffer(), key(3).toBuffer(), i64(1_767_225_600n), u8(252), Buffer.alloc(7));
  const info = { sender: key(1), inviteSigner: key(2), escrow: key(3), expirySeconds: 1_767_225_600n, bump: 252 };

  it('is what the encoder writes and the decoder reads', () => {
    expect(data.length).toBe(120);
    expect(Buffer.from(inviteInfoTokenData(info)).toString('hex')).toBe(data.toString('hex'));
    expect(decodeInviteInfoToken(data)).toEqual(info);
  });

  it('sits at the PDA of ["invite", invite signer]', () => {
    const signer = key(2);
    const [address, bump] = PublicKey.findProgramAddressSync([Buffer.from('invite'), signer.toBuffer()], PROGRAM);
    expect(invitePda(signer)).toEqual({ address, bump });
  });
});
