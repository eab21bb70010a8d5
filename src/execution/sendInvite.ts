import { generateInviteCode, INVITE_CODE_RANDOM_BYTES } from '../jupiter/send/inviteCode.js';
import type { Intent } from '../sdk/intents.js';
import type { HotWallet } from '../solana/wallet.js';

/**
 * The invite code of a send intent: derived from the hot wallet's key and the intent id, in the docs' own format
 * (base58 of 13 bytes, first 12 characters). It is never written anywhere: the keeper shows it to the operator once
 * the send lands, and the same wallet derives the same code again (after a restart, for a clawback).
 */
export function inviteCodeFor(wallet: HotWallet, intentId: string): string {
  const bytes = wallet.deriveBytes(`send-invite:${intentId}`, INVITE_CODE_RANDOM_BYTES);
  return generateInviteCode(() => bytes);
}

/** The one line the operator sees when a send lands: the amount and the code to give the recipient. */
export function inviteNotice(intentId: string, intent: Extract<Intent, { kind: 'send' }>, wallet: HotWallet): string {
  return `send ${intentId} landed: ${intent.amount} base units of ${intent.mint}; invite code ${inviteCodeFor(wallet, intentId)} (give it to the recipient; jup-keeper does not store it)\n`;
}
