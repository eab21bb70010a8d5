// Issue 21, item 4 (send): the invite program's native-SOL instructions and account as its published client lays
// them out (src/jupiter/programs/send.ts), and the guard's checks of them on instructions alone: a native send of
// the intent's amount into the keeper's invite passes; another amount, another invite, a native send of a token,
// and a clawback of an invite that is not the wallet's are refused with their rules.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { clawbackCheck, sendCheck } from '../../src/execution/productGuard/send.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import { claimInstruction, clawbackInstruction, decodeInviteInfo, decodeSendInstruction, expireInstruction, initializeInstruction, INVITE_INFO_SIZE, inviteInfoData, invitePda, SEND_DISCRIMINATORS, SEND_PROGRAM } from '../../src/jupiter/programs/send.js';
import { USDC_MINT, WSOL_MINT } from '../../src/lib/mints.js';
import type { AccountSnapshot } from '../../src/solana/guardChanges.js';

const sha = (s: string) => createHash('sha256').update(s).digest().subarray(0, 8).toString('hex');
const key = () => Keypair.generate().publicKey;

describe('the native-SOL instructions of the invite program', () => {
  it('have the discriminators of the published client (sha256 of their names)', () => {
    expect(SEND_DISCRIMINATORS.initialize.toString('hex')).toBe(sha('global:initialize'));
    expect(SEND_DISCRIMINATORS.initialize.toString('hex')).toBe(Buffer.from([175, 175, 109, 31, 13, 152, 155, 237]).toString('hex'));
    expect(SEND_DISCRIMINATORS.claim.toString('hex')).toBe(Buffer.from([62, 198, 214, 193, 213, 159, 108, 210]).toString('hex'));
    expect(SEND_DISCRIMINATORS.clawback.toString('hex')).toBe(Buffer.from([111, 92, 142, 79, 33, 234, 82, 27]).toString('hex'));
    expect(SEND_DISCRIMINATORS.expire.toString('hex')).toBe(Buffer.from([243, 83, 205, 58, 57, 201, 247, 146]).toString('hex'));
    expect(SEND_DISCRIMINATORS.inviteInfo.toString('hex')).toBe(Buffer.from([221, 16, 207, 116, 22, 143, 244, 211]).toString('hex'));
  });

  it('are written with the client\'s accounts and flags, and read back by name', () => {
    const [sender, signer, claimer, keeper] = [key(), key(), key(), key()];
    const pda = invitePda(signer).address;
    const init = initializeInstruction({ sender, inviteSigner: signer, inviteInfo: pda, expirySeconds: -5n, amount: 123_456_789n });
    expect(init.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable])).toEqual([[sender.toBase58(), true, true], [signer.toBase58(), true, false], [pda.toBase58(), false, true], ['11111111111111111111111111111111', false, false]]);
    expect(Buffer.from(init.data).toString('hex')).toBe(sha('global:initialize') + 'fbffffffffffffff' + '15cd5b0700000000');
    expect(decodeSendInstruction(rawInstruction(init))).toEqual({ name: 'initialize', accounts: { sender: sender.toBase58(), inviteSigner: signer.toBase58(), inviteInfo: pda.toBase58(), systemProgram: '11111111111111111111111111111111' }, expirySeconds: -5n, amount: 123_456_789n });
    expect(decodeSendInstruction(rawInstruction(clawbackInstruction({ inviteInfo: pda, sender })))).toEqual({ name: 'clawback', accounts: { inviteInfo: pda.toBase58(), sender: sender.toBase58() } });
    expect(decodeSendInstruction(rawInstruction(claimInstruction({ inviteInfo: pda, inviteSigner: signer, claimer, keeper })))).toMatchObject({ name: 'claim', accounts: { claimer: claimer.toBase58(), keeper: keeper.toBase58() } });
    expect(decodeSendInstruction(rawInstruction(expireInstruction({ inviteInfo: pda, sender, keeper })))).toMatchObject({ name: 'expire', accounts: { sender: sender.toBase58(), keeper: keeper.toBase58() } });
    // An initialize with a byte past its two arguments is in no layout.
    expect(() => decodeSendInstruction({ ...rawInstruction(init), data: Buffer.concat([init.data, Buffer.from([0])]) })).toThrow('the layout (discriminator, expiry i64, amount u64) has 24');
  });

  it('keep a native invite in a 48-byte InviteInfo: discriminator, sender, expiry', () => {
    const sender = key();
    const data = inviteInfoData({ sender, expirySeconds: 1_900_000_000n });
    expect(data.length).toBe(INVITE_INFO_SIZE);
    expect(INVITE_INFO_SIZE).toBe(48);
    expect(decodeInviteInfo(data)).toEqual({ sender, expirySeconds: 1_900_000_000n });
    expect(decodeInviteInfo(data.subarray(0, 47))).toBeUndefined();
  });
});

describe('the guard\'s checks of native-SOL invites', () => {
  const wallet = Keypair.generate().publicKey;
  const signer = key();
  const pda = invitePda(signer).address;
  const program = SEND_PROGRAM.toBase58();
  const rulesOf = (v: { violations: Array<{ rule: string }> }) => v.violations.map((x) => x.rule);
  const init = (o: { amount?: bigint; signer?: PublicKey } = {}) => rawInstruction(initializeInstruction({ sender: wallet, inviteSigner: o.signer ?? signer, inviteInfo: invitePda(o.signer ?? signer).address, expirySeconds: 1n, amount: o.amount ?? 5_000_000n }));

  it('holds a native send to the intent: its amount, the keeper\'s invite, SOL only; the invite account is its escrow', () => {
    const check = (intentMint: string, ix = init()) => sendCheck({ kind: 'send', mint: intentMint, amount: 5_000_000n }, wallet, signer.toBase58()).check([ix], () => null);
    const ok = check(WSOL_MINT);
    expect(ok.violations).toEqual([]);
    expect(ok.terms).toMatchObject({ escrows: [pda.toBase58()], creates: [{ address: pda.toBase58(), owner: program, space: { min: 48n, max: 48n } }] });
    expect(rulesOf(check(WSOL_MINT, init({ amount: 5_000_001n })))).toEqual(['product-amount']);
    expect(rulesOf(check(WSOL_MINT, init({ signer: key() })))).toEqual(['product-escrow']);
    expect(rulesOf(check(USDC_MINT))).toEqual(['product-instruction']);
  });

  it('holds a native clawback to the wallet\'s own invite on chain, owing every lamport it holds', () => {
    const held = (sender: PublicKey, lamports: bigint): AccountSnapshot => ({ lamports, owner: program, data: inviteInfoData({ sender, expirySeconds: 1n }), executable: false });
    const ix = rawInstruction(clawbackInstruction({ inviteInfo: pda, sender: wallet }));
    const check = (account: AccountSnapshot | null, invite = pda.toBase58()) => clawbackCheck({ kind: 'send.clawback', invitePda: invite }, wallet).check([ix], (a) => (a === pda.toBase58() ? account : null));
    const ok = check(held(wallet, 7_000_000n));
    expect(ok.violations).toEqual([]);
    expect(ok.terms).toMatchObject({ payers: [pda.toBase58()], payouts: [{ mint: WSOL_MINT, least: 7_000_000n }] });
    expect(rulesOf(check(held(key(), 7_000_000n)))).toEqual(['product-owner']);
    expect(rulesOf(check(null))).toEqual(['product-target']);
    expect(rulesOf(check(held(wallet, 7_000_000n), invitePda(key()).address.toBase58()))).toEqual(['product-target']);
  });
});
