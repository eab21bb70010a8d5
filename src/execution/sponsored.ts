import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import bs58 from 'bs58';
import type { VersionedTransaction } from '@solana/web3.js';
import { resultOf, type SolanaRpc } from '../solana/rpc.js';

// A sponsored transaction is one whose fee payer is not the wallet (Ultra's JupiterZ market maker, Jupiter's gas
// wallet): the fee payer signs at the venue, after the wallet, so the transaction's id (its first signature) is not
// known when the wallet signs. These find it without trusting the venue: a signature is the id only if it verifies
// as the fee payer's over the exact message the wallet signed (the chain lands a message once), and absence is
// proven on the wallet's own history, where that transaction would appear.

/** DER prefix of an Ed25519 public key in SubjectPublicKeyInfo form (RFC 8410), before its 32 raw bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Signatures asked for per page of an address's history, and pages read at most before giving up on a proof. */
const HISTORY_PAGE = 1_000;
const HISTORY_PAGES = 10;

/** The transaction's id (base58 of its first signature), or undefined while that slot is still empty. */
export function transactionId(tx: VersionedTransaction): string | undefined {
  const first = tx.signatures[0];
  return first && first.some((b) => b !== 0) ? bs58.encode(first) : undefined;
}

/** Whether the fee payer's signature (the transaction's id) is still to come: a sponsored transaction before the venue lands it. */
export function awaitsFeePayer(tx: VersionedTransaction): boolean {
  return transactionId(tx) === undefined;
}

/** Base58 of `signer`'s signature in the transaction; throws when it is not a required signer or has not signed. */
export function signatureOf(tx: VersionedTransaction, signer: string): string {
  const n = tx.message.header.numRequiredSignatures;
  const i = tx.message.staticAccountKeys.findIndex((k, j) => j < n && k.toBase58() === signer);
  const sig = i >= 0 ? tx.signatures[i] : undefined;
  if (!sig || sig.every((b) => b === 0)) throw new Error(`${signer} has not signed this transaction`);
  return bs58.encode(sig);
}

/** The first required signer whose signature the transaction already holds (the wallet, in a sponsored one). */
export function firstSigner(tx: VersionedTransaction): string | undefined {
  const n = tx.message.header.numRequiredSignatures;
  for (let i = 0; i < n; i += 1) if (tx.signatures[i]?.some((b) => b !== 0)) return tx.message.staticAccountKeys[i]!.toBase58();
  return undefined;
}

/** Whether `signature` (base58) is the fee payer's valid signature of the transaction's message: then it is its id. */
export function isFeePayerSignature(tx: VersionedTransaction, signature: string | undefined, message: Uint8Array = tx.message.serialize()): signature is string {
  if (!signature) return false;
  let sig: Uint8Array;
  try {
    sig = bs58.decode(signature);
  } catch {
    return false;
  }
  if (sig.length !== 64) return false;
  return verifySignature(null, message, feePayerKey(tx), sig);
}

function feePayerKey(tx: VersionedTransaction): KeyObject {
  const raw = tx.message.staticAccountKeys[0]!.toBytes();
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** What a search of the wallet's history found: the transaction's id, and whether the search reached back to `minSlot`. */
export interface HistorySearch {
  signature: string | undefined;
  /** Every signature of the wallet since `minSlot` was looked at (so `undefined` proves the transaction is not there). */
  complete: boolean;
}

/**
 * Looks for a sponsored transaction in the wallet's history since `minSlot` (a slot no later than its first send),
 * on a node at least at `minContextSlot`: the signature that verifies as the fee payer's over its message. Confirmed
 * entries only (the history of an address is not kept below confirmed).
 */
export async function findInHistory(rpc: SolanaRpc, o: { wallet: string; tx: VersionedTransaction; minSlot: number; minContextSlot?: number }): Promise<HistorySearch> {
  const message = o.tx.message.serialize();
  let before: string | undefined;
  for (let page = 0; page < HISTORY_PAGES; page += 1) {
    const config = { limit: HISTORY_PAGE, commitment: 'confirmed', ...(before ? { before } : {}), ...(o.minContextSlot !== undefined ? { minContextSlot: o.minContextSlot } : {}) };
    const [reply] = await rpc.batch([{ method: 'getSignaturesForAddress', params: [o.wallet, config] }]);
    const entries = resultOf(reply!, 'getSignaturesForAddress');
    if (!Array.isArray(entries)) throw new Error('getSignaturesForAddress: the RPC node answered no list');
    for (const e of entries as Array<{ signature?: unknown; slot?: unknown }>) {
      if (typeof e.signature !== 'string' || typeof e.slot !== 'number') throw new Error('getSignaturesForAddress: an entry without a signature or slot');
      if (e.slot < o.minSlot) return { signature: undefined, complete: true };
      if (isFeePayerSignature(o.tx, e.signature, message)) return { signature: e.signature, complete: true };
      before = e.signature;
    }
    if (entries.length < HISTORY_PAGE) return { signature: undefined, complete: true };
  }
  return { signature: undefined, complete: false };
}

/** Blocks past lastValidBlockHeight before a sponsored transaction's absence is trusted: its last possible block is confirmed by then. */
const CONFIRMATION_MARGIN_BLOCKS = 32n;

/**
 * Whether a sponsored transaction provably never landed: its blockhash is no longer valid on a node at least at
 * `minSlot`, the block height there is well past lastValidBlockHeight (so any block it could be in is confirmed),
 * the wallet's history read from a node at least that fresh holds no signature of its fee payer over its message
 * back to `minSlot`, and that node keeps history back to `minSlot`. Anything short of that is no proof.
 */
export async function provenAbsent(rpc: SolanaRpc, o: { wallet: string; tx: VersionedTransaction; minSlot: number; lastValidBlockHeight: bigint }): Promise<{ absent: true } | { absent: false; found?: string }> {
  const validity = await rpc.blockhashValidity(o.tx.message.recentBlockhash, o.minSlot);
  if (validity.valid) return { absent: false };
  const height = await rpc.blockHeight(validity.slot);
  if (height <= o.lastValidBlockHeight + CONFIRMATION_MARGIN_BLOCKS) return { absent: false };
  const search = await findInHistory(rpc, { wallet: o.wallet, tx: o.tx, minSlot: o.minSlot, minContextSlot: validity.slot });
  if (search.signature) return { absent: false, found: search.signature };
  if (!search.complete) return { absent: false };
  if ((await rpc.minimumLedgerSlot()) > o.minSlot) return { absent: false };
  return { absent: true };
}
