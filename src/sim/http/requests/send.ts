import { z } from 'zod';
import { address, queryInt, u64String } from './params.js';

/*
 * Requests of the Send API, /send/v1 (openapi/send.yaml; jupiter-api.md §10). `amount` is a raw string, as the spec
 * types it. Bad input is answered `{error}` with 400.
 */

/** Body of POST /craft-send: `inviteSigner` (the invite code's public key), `sender`, `amount` required; `mint` (default wSOL). */
export const craftSendBody = z.object({ inviteSigner: address, sender: address, amount: u64String, mint: address.optional() });
/** A parsed craft-send body. */
export type CraftSendBody = z.output<typeof craftSendBody>;

/** Body of POST /craft-clawback: `invitePDA` and `sender` required. */
export const craftClawbackBody = z.object({ invitePDA: address, sender: address });
/** A parsed craft-clawback body. */
export type CraftClawbackBody = z.output<typeof craftClawbackBody>;

/** Query of GET /pending-invites and /invite-history: `address` required, `page` an integer from 1 (default 1). */
export const inviteListQuery = z.object({ address, page: queryInt(1).default(1) });
/** A parsed invite list query. */
export type InviteListQuery = z.output<typeof inviteListQuery>;

/** An invite code (DOCS send/invite-code.mdx): 12 base58 characters, the first 12 of base58 of 13 random bytes. */
const inviteCode = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{12}$/, 'Invalid invite code');

/**
 * Body of POST /__sim/send/claim, the simulator's stand-in for Jupiter Mobile (the only place the service takes
 * claims): the code the recipient was given and the wallet to pay.
 */
export const claimBody = z.object({ code: inviteCode, receiver: address });
/** A parsed claim body. */
export type ClaimBody = z.output<typeof claimBody>;
