import { describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { inviteCodeFor, inviteNotice } from '../../src/execution/sendInvite.js';
import { isInviteCode } from '../../src/jupiter/send/inviteCode.js';
import { HotWallet } from '../../src/solana/wallet.js';

describe('a send intent\'s invite code', () => {
  const keypair = Keypair.generate();
  const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));

  it('is the same for the same wallet and intent (a restarted keeper finds it again), in the docs\' format', () => {
    const code = inviteCodeFor(wallet, 'dca.send.abc');
    expect(isInviteCode(code)).toBe(true);
    expect(inviteCodeFor(HotWallet.fromSecret(bs58.encode(keypair.secretKey)), 'dca.send.abc')).toBe(code);
  });

  it('differs between intents and between wallets, and reveals nothing of the key', () => {
    const code = inviteCodeFor(wallet, 'dca.send.abc');
    expect(inviteCodeFor(wallet, 'dca.send.abd')).not.toBe(code);
    expect(inviteCodeFor(HotWallet.generate(), 'dca.send.abc')).not.toBe(code);
    expect(bs58.encode(keypair.secretKey)).not.toContain(code);
  });

  it('is shown to the operator in one line with the amount, and only there', () => {
    const line = inviteNotice('dca.send.abc', { kind: 'send', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', amount: 5_000_000n }, wallet);
    expect(line).toBe(`send dca.send.abc landed: 5000000 base units of EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v; invite code ${inviteCodeFor(wallet, 'dca.send.abc')} (give it to the recipient; jup-keeper does not store it)\n`);
  });
});
