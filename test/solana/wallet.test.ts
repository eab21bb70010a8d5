import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { HotWallet, WalletError } from '../../src/solana/wallet.js';
import { verifyEd25519 } from '../../src/sim/chain/ed25519.js';
import { scratchDir, writeKeypair } from '../helpers/keeper.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

function transferTx(from: Keypair): VersionedTransaction {
  const msg = new TransactionMessage({ payerKey: from.publicKey, recentBlockhash: '11111111111111111111111111111111', instructions: [SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 })] }).compileToV0Message();
  return new VersionedTransaction(msg);
}

/** What `fn` throws; fails the test when it returns instead. */
function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw, but it returned');
}

describe('the hot wallet', () => {
  it('loaded from a keypair file signs with the real key', () => {
    const s = scratchDir('wallet');
    const { path, keypair } = writeKeypair(s.dir);
    const wallet = HotWallet.fromFile(path);
    expect(wallet.address).toBe(keypair.publicKey.toBase58());
    const tx = transferTx(keypair);
    wallet.sign(tx);
    expect(verifyEd25519(keypair.publicKey.toBytes(), tx.message.serialize(), tx.signatures[0]!)).toBe(true);
    s.cleanup();
  });

  it('loaded from a base58 secret signs with the real key', () => {
    const keypair = Keypair.generate();
    const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));
    const tx = transferTx(keypair);
    wallet.sign(tx);
    expect(verifyEd25519(keypair.publicKey.toBytes(), tx.message.serialize(), tx.signatures[0]!)).toBe(true);
  });

  it('never shows its secret when logged, inspected or serialised', () => {
    const keypair = Keypair.generate();
    const wallet = HotWallet.fromSecret(JSON.stringify(Array.from(keypair.secretKey)));
    const secretForms = [bs58.encode(keypair.secretKey), Buffer.from(keypair.secretKey).toString('base64'), JSON.stringify(Array.from(keypair.secretKey))];
    for (const text of [JSON.stringify(wallet), inspect(wallet, { depth: 5, showHidden: true }), String(wallet), JSON.stringify({ wallet })]) {
      for (const secret of secretForms) expect(text).not.toContain(secret);
    }
  });

  it('rejects malformed key material without echoing it', () => {
    const s = scratchDir('badwallet');
    const bad = join(s.dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([1, 2, 3]));
    expect(() => HotWallet.fromFile(bad)).toThrow(WalletError);
    expect(() => HotWallet.fromFile(join(s.dir, 'missing.json'))).toThrow(/cannot read/);
    const wrongPair = new Uint8Array(64).fill(7);
    expect(() => HotWallet.fromSecret(JSON.stringify(Array.from(wrongPair)))).toThrow(/not a valid ed25519 secret key/);
    // Not base58 (0, O, I and l are outside its alphabet): refused, and the message does not repeat the input.
    const thrown = caught(() => HotWallet.fromSecret('not-base58-0OIl'));
    expect(thrown).toBeInstanceOf(WalletError);
    expect((thrown as Error).message).not.toContain('not-base58-0OIl');
    const near = bs58.encode(Keypair.generate().secretKey).slice(0, -1);
    const nearMiss = caught(() => HotWallet.fromSecret(near));
    expect(nearMiss).toBeInstanceOf(WalletError);
    expect((nearMiss as Error).message).not.toContain(near);
    s.cleanup();
  });
});
