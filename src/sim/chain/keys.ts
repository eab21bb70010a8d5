import bs58 from 'bs58';
import { PublicKey } from '@solana/web3.js';
import { BoundedCache } from '../boundedCache.js';

// Base58 text and PublicKey objects of the 32-byte keys the simulator reads over and over (account owners, mints,
// wallets): web3.js builds a BN for every PublicKey and encodes base58 again on every toBase58, each about as costly
// as the account read itself. The caches are always correct: a key's text and object depend on its 32 bytes alone,
// and a PublicKey is never mutated. Bounded, oldest dropped first.

/** Base58 texts by the key's bytes (as latin1). */
const texts = new BoundedCache<string, string>(10_000);
/** Shared PublicKey objects by the key's bytes (as latin1). */
const objects = new BoundedCache<string, PublicKey>(10_000);
/** Base58 texts of PublicKey objects seen (the shared ones above, and any other). */
const textsOfObjects = new WeakMap<PublicKey, string>();

function bytesId(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** The base58 text of a 32-byte key: what `new PublicKey(bytes).toBase58()` gives. */
export function keyText(bytes: Uint8Array): string {
  return texts.getOr(bytesId(bytes), () => bs58.encode(bytes));
}

/** A shared PublicKey of a 32-byte key. */
export function keyOf(bytes: Uint8Array): PublicKey {
  return objects.getOr(bytesId(bytes), () => new PublicKey(Buffer.from(bytes)));
}

/** A PublicKey's base58 text (`key.toBase58()`, which encodes `key.toBytes()`), encoded once per object and key. */
export function textOf(key: PublicKey): string {
  let text = textsOfObjects.get(key);
  if (text === undefined) {
    text = keyText(key.toBytes());
    textsOfObjects.set(key, text);
  }
  return text;
}
