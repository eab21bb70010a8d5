import { createHmac, createPrivateKey, sign as edSign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import bs58 from 'bs58';
import { Keypair, type PublicKey, type VersionedTransaction } from '@solana/web3.js';
import { KeeperError } from '../lib/errors.js';

/** The wallet could not be loaded. The message never contains key material. */
export class WalletError extends KeeperError {
  constructor(message: string) {
    super('WALLET_INVALID', 'halt', message);
  }
}

/**
 * The hot wallet. The secret key is loaded once and kept in a private field: it is never logged, serialised,
 * placed in job data or sent anywhere; only signatures leave the process. `toJSON` and `inspect` show the public
 * key alone.
 */
export class HotWallet {
  readonly #keypair: Keypair;
  /** The same key for node's native ed25519 (OpenSSL): signatures are identical (ed25519 is deterministic), and far cheaper than web3.js's JavaScript implementation. */
  readonly #signingKey: KeyObject;
  readonly publicKey: PublicKey;
  readonly address: string;

  private constructor(keypair: Keypair) {
    this.#keypair = keypair;
    this.#signingKey = ed25519PrivateKey(keypair.secretKey.subarray(0, 32));
    this.publicKey = keypair.publicKey;
    this.address = keypair.publicKey.toBase58();
  }

  /** A new random wallet (paper trading). */
  static generate(): HotWallet {
    return new HotWallet(Keypair.generate());
  }

  /** Loads a Solana CLI keypair file: a JSON array of 64 bytes. */
  static fromFile(path: string): HotWallet {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new WalletError(`cannot read the keypair file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
    return new HotWallet(parseSecret(text, `keypair file ${path}`));
  }

  /** Loads a secret from the environment: a base58 secret key or a JSON array of 64 bytes. */
  static fromSecret(secret: string, source = 'JUPKEEPER_SECRET_KEY'): HotWallet {
    return new HotWallet(parseSecret(secret, source));
  }

  /**
   * Adds the wallet's signature to a transaction (other signatures are kept). Throws when the wallet is not one of
   * its required signers, as web3.js's `sign` does.
   */
  sign(tx: VersionedTransaction): void {
    const message = tx.message;
    const index = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).findIndex((k) => k.equals(this.publicKey));
    if (index < 0) throw new Error(`Cannot sign transaction: signer ${this.address} not found in required signers`);
    tx.signatures[index] = new Uint8Array(edSign(null, message.serialize(), this.#signingKey));
  }

  /**
   * Up to 32 bytes derived from the secret key for a purpose (HMAC-SHA256 keyed by the key's seed): the same wallet
   * and label always give the same bytes, and they reveal nothing of the key. A send intent's invite code comes
   * from here, so it never needs storing and a restarted keeper finds the same one.
   */
  deriveBytes(label: string, length = 32): Uint8Array {
    if (length < 1 || length > 32) throw new RangeError('deriveBytes gives 1 to 32 bytes');
    const seed = this.#keypair.secretKey.subarray(0, 32);
    return new Uint8Array(createHmac('sha256', seed).update(`jup-keeper:${label}`, 'utf8').digest().subarray(0, length));
  }

  /** The secret key as a Solana CLI keypair file body; only for writing a paper wallet to disk. */
  exportKeypairFile(): string {
    return JSON.stringify(Array.from(this.#keypair.secretKey));
  }

  toJSON(): { publicKey: string } {
    return { publicKey: this.address };
  }

  toString(): string {
    return `HotWallet(${this.address})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/** PKCS#8 DER header of an ed25519 private key (RFC 8410): the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A native private key object from an ed25519 seed; the DER copy made for it is wiped. */
function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  const der = Buffer.concat([ED25519_PKCS8_PREFIX, seed]);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

function parseSecret(text: string, source: string): Keypair {
  const trimmed = text.trim();
  let bytes: Uint8Array | undefined;
  if (trimmed.startsWith('[')) {
    let arr: unknown;
    try {
      arr = JSON.parse(trimmed);
    } catch {
      throw new WalletError(`${source} is not valid JSON (expected an array of 64 numbers)`);
    }
    if (!Array.isArray(arr) || arr.length !== 64 || !arr.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
      throw new WalletError(`${source} must be a JSON array of 64 numbers from 0 to 255`);
    }
    bytes = Uint8Array.from(arr as number[]);
  } else {
    try {
      bytes = bs58.decode(trimmed);
    } catch {
      throw new WalletError(`${source} is neither a JSON byte array nor base58`);
    }
    if (bytes.length !== 64) throw new WalletError(`${source} decodes to ${bytes.length} bytes; a secret key has 64`);
  }
  try {
    // fromSecretKey keeps the array it is given: hand it a copy, then wipe ours.
    return Keypair.fromSecretKey(Uint8Array.from(bytes));
  } catch {
    throw new WalletError(`${source} is not a valid ed25519 secret key (its public half does not match)`);
  } finally {
    bytes.fill(0);
  }
}
