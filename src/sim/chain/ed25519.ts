import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { Keypair, VersionedTransaction } from '@solana/web3.js';
import { BoundedCache } from '../boundedCache.js';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Parsed keys by their hex: building a KeyObject costs more than the verification itself. */
const keys = new BoundedCache<string, KeyObject>(10_000);

/**
 * Signatures found valid lately, by the signature, with the key and message they are valid for. A settlement checks
 * the same signature more than once (Ultra's execute checks the taker's, then the venue checks every user signature
 * of what it settles). Always correct: validity depends on the three byte strings alone, and a hit needs all three
 * equal to a pair that verified. Bounded, oldest dropped first.
 */
const verified = new BoundedCache<string, { pubkey: Buffer; message: Buffer }>(1_024);

/** Verifies an ed25519 signature of `message` by the 32-byte public key `pubkey`. */
export function verifyEd25519(pubkey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (pubkey.length !== 32 || signature.length !== 64) return false;
  try {
    const sig = Buffer.from(signature).toString('base64');
    const seen = verified.get(sig);
    if (seen && seen.pubkey.equals(pubkey) && seen.message.equals(message)) return true;
    const key = keys.getOr(Buffer.from(pubkey).toString('hex'), () => createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(pubkey)]), format: 'der', type: 'spki' }));
    if (!verify(null, message, key, signature)) return false;
    verified.set(sig, { pubkey: Buffer.from(pubkey), message: Buffer.from(message) });
    return true;
  } catch {
    return false;
  }
}

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const signers = new Map<string, KeyObject>();

/**
 * Adds a keypair's signature to a transaction with OpenSSL's ed25519 (web3.js signs in pure JavaScript, an order of
 * magnitude slower); the same signature web3.js would produce, since ed25519 signing is deterministic. `message` is
 * the transaction's message serialized, when the caller has it.
 */
export function cosign(tx: VersionedTransaction, keypair: Keypair, message: Uint8Array = tx.message.serialize()): void {
  const id = keypair.publicKey.toBase58();
  let key = signers.get(id);
  if (!key) {
    key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, Buffer.from(keypair.secretKey.subarray(0, 32))]), format: 'der', type: 'pkcs8' });
    signers.set(id, key);
  }
  tx.addSignature(keypair.publicKey, sign(null, message, key));
}
