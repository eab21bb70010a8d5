import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { Keypair, VersionedTransaction } from '@solana/web3.js';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Parsed keys by their hex: building a KeyObject costs more than the verification itself. */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;

/** Verifies an ed25519 signature of `message` by the 32-byte public key `pubkey`. */
export function verifyEd25519(pubkey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (pubkey.length !== 32 || signature.length !== 64) return false;
  try {
    const id = Buffer.from(pubkey).toString('hex');
    let key = keys.get(id);
    if (!key) {
      key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(pubkey)]), format: 'der', type: 'spki' });
      if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
      keys.set(id, key);
    }
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const signers = new Map<string, KeyObject>();

/**
 * Adds a keypair's signature to a transaction with OpenSSL's ed25519 (web3.js signs in pure JavaScript, an order of
 * magnitude slower); the same signature web3.js would produce, since ed25519 signing is deterministic.
 */
export function cosign(tx: VersionedTransaction, keypair: Keypair): void {
  const id = keypair.publicKey.toBase58();
  let key = signers.get(id);
  if (!key) {
    key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, Buffer.from(keypair.secretKey.subarray(0, 32))]), format: 'der', type: 'pkcs8' });
    signers.set(id, key);
  }
  tx.addSignature(keypair.publicKey, sign(null, tx.message.serialize(), key));
}
