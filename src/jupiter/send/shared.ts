import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { maybe, pubkey, u64Loose } from '../schemas.js';

/** Base path of the Send API (jupiter-api.md §10). */
export const SEND_PATH = '/send/v1';

/** A timestamp as the service sends it: an ISO string (the examples) or Unix seconds (the spec prose), as a string. */
const timestampSchema = z.union([z.string().min(1), z.number().transform((n) => String(n))]);

/**
 * `confirmed` is an integer in the spec's schema and `true` in its example (jupiter-api.md §13.6): both are read,
 * a non-zero integer counts as confirmed.
 */
const confirmedSchema = maybe(z.union([z.boolean(), z.number().int().transform((n) => n !== 0)])).transform((v) => v ?? null);

/**
 * One invite as /pending-invites and /invite-history return it. The service sends snake_case; the parsed invite is
 * camelCase, `amount` a bigint in base units of `mint` (null mint: SOL).
 */
export const sendInviteSchema = z
  .object({
    invite_signer: pubkey,
    invite_pda: pubkey,
    sender: pubkey,
    expiry: timestampSchema,
    amount: u64Loose,
    creation_tx: z.string(),
    deletion_tx: maybe(z.string()),
    receiver: maybe(pubkey),
    action: maybe(z.string()),
    creation_time: timestampSchema,
    deletion_time: maybe(timestampSchema),
    mint: maybe(pubkey),
    confirmed: confirmedSchema,
  })
  .transform((i) => ({
    inviteSigner: i.invite_signer,
    invitePda: i.invite_pda,
    sender: i.sender,
    expiry: i.expiry,
    amount: i.amount,
    creationTx: i.creation_tx,
    deletionTx: i.deletion_tx ?? null,
    receiver: i.receiver ?? null,
    action: i.action ?? null,
    creationTime: i.creation_time,
    deletionTime: i.deletion_time ?? null,
    mint: i.mint ?? null,
    confirmed: i.confirmed,
  }));

/** A parsed invite: camelCase, `amount` bigint base units, absent optional fields null. */
export type SendInvite = z.output<typeof sendInviteSchema>;

/** `{invites, hasMoreData}`, the body of both invite listings. */
export const sendInvitePageSchema = z.object({
  invites: z.array(sendInviteSchema),
  hasMoreData: z.boolean(),
});

/** One page of invites. */
export type SendInvitePage = z.output<typeof sendInvitePageSchema>;

/** Parameters of the invite listings. */
export interface InviteListParams {
  /** The wallet whose invites to list (the sender; invite-history also accepts the recipient). */
  address: string;
  /** Page number from 1 (default 1). */
  page?: number | undefined;
}

/** Checks and sends one invite-listing GET; `path` is below /send/v1. */
export function getInvitePage(
  client: JupiterTransport,
  endpoint: string,
  path: string,
  params: InviteListParams,
  options: CallOptions,
): Promise<SendInvitePage> {
  if (!pubkey.safeParse(params.address).success) {
    throw new LimitError(endpoint, 'send.address.address', `address is not a base58 address: ${JSON.stringify(params.address)}`);
  }
  if (params.page !== undefined && !(Number.isInteger(params.page) && params.page >= 1)) {
    throw new LimitError(endpoint, 'send.page.min', `page must be an integer from 1, got ${params.page}`);
  }
  return client.request({
    endpoint,
    method: 'GET',
    path: `${SEND_PATH}${path}`,
    query: { address: params.address, page: params.page },
    schema: sendInvitePageSchema,
    signal: options.signal,
  });
}
