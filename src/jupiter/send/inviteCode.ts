import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { Keypair, PublicKey } from '@solana/web3.js';
import { LimitError } from '../errors.js';
import { invitePda, SEND_PROGRAM } from '../programs/send.js';

/**
 * Client-side invite derivation of Jupiter Send (jupiter-api.md §10, DOCS send/invite-code.mdx and
 * craft-clawback.mdx). The code is the secret that lets anyone claim the funds: it never goes into an error message
 * or a log line, and the API never sees it (only the invite's public key and PDA).
 */

/** The Send invite program; invite PDAs are derived under it. */
export const SEND_INVITE_PROGRAM_ID: PublicKey = SEND_PROGRAM;

/** Length of an invite code, in characters. */
export const INVITE_CODE_LENGTH = 12;

/** Random bytes behind one code: base58 of 13 bytes is 17 or 18 characters, of which the first 12 are kept. */
export const INVITE_CODE_RANDOM_BYTES = 13;

const INVITE_CODE = /^[1-9A-HJ-NP-Za-km-z]{12}$/;
const BASE58_CHAR = /^[1-9A-HJ-NP-Za-km-z]$/;

/** Whether `code` has the form of an invite code: exactly 12 base58 characters. */
export function isInviteCode(code: string): boolean {
  return INVITE_CODE.test(code);
}

/** Throws LimitError `send.inviteCode.format` unless `code` is 12 base58 characters. The code is not echoed. */
export function assertInviteCode(code: string): void {
  if (typeof code !== 'string') throw invalid('an invite code must be a string');
  if (code.length !== INVITE_CODE_LENGTH) {
    throw invalid(`an invite code is ${INVITE_CODE_LENGTH} base58 characters, got ${code.length} characters`);
  }
  const bad = [...code].findIndex((c) => !BASE58_CHAR.test(c));
  if (bad >= 0) throw invalid(`an invite code is ${INVITE_CODE_LENGTH} base58 characters; character ${bad + 1} is not base58 (0, O, I and l are excluded)`);
}

function invalid(message: string): LimitError {
  return new LimitError('send.inviteCode', 'send.inviteCode.format', message);
}

/**
 * A new random invite code, exactly as the docs make one: base58 of 13 random bytes, cut to its first 12 characters
 * (58^12, about 1.4e21 codes). `random` is for tests only.
 */
export function generateInviteCode(random: (size: number) => Uint8Array = randomBytes): string {
  const bytes = random(INVITE_CODE_RANDOM_BYTES);
  if (bytes.length !== INVITE_CODE_RANDOM_BYTES) throw new RangeError(`random source returned ${bytes.length} bytes, expected 13`);
  return bs58.encode(bytes).slice(0, INVITE_CODE_LENGTH);
}

/**
 * The invite keypair of a code: the ed25519 keypair whose 32-byte seed is sha256("invite:" + code). Its public key
 * is `inviteSigner` for craft-send; it co-signs the send transaction. Throws LimitError for a malformed code.
 */
export function inviteKeypairFromCode(code: string): Keypair {
  assertInviteCode(code);
  const seed = createHash('sha256').update(`invite:${code}`, 'utf8').digest();
  return Keypair.fromSeed(new Uint8Array(seed));
}

/** The invite PDA of an invite public key: findProgramAddressSync(["invite", pubkey], SEND_INVITE_PROGRAM_ID) (programs/send.ts). */
export function deriveInvitePda(invitePubkey: PublicKey | string): PublicKey {
  return invitePda(typeof invitePubkey === 'string' ? new PublicKey(invitePubkey) : invitePubkey).address;
}

/** The invite PDA of a code (`invitePDA` for craft-clawback). Throws LimitError for a malformed code. */
export function invitePdaFromCode(code: string): PublicKey {
  return deriveInvitePda(inviteKeypairFromCode(code).publicKey);
}
