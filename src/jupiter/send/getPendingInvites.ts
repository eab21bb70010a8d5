import type { CallOptions, JupiterTransport } from '../transport.js';
import { getInvitePage, sendInvitePageSchema, type InviteListParams, type SendInvitePage } from './shared.js';

/** Parameters of getPendingInvites: the sender's address and a page from 1. */
export type GetPendingInvitesParams = InviteListParams;

/** The /send/v1/pending-invites body: `{invites, hasMoreData}`. */
export const pendingInvitesResponseSchema = sendInvitePageSchema;

/** GET /send/v1/pending-invites?address=&page=: invites the address sent that are not yet claimed, clawed back or expired. */
export async function getPendingInvites(
  client: JupiterTransport,
  params: GetPendingInvitesParams,
  options: CallOptions = {},
): Promise<SendInvitePage> {
  return getInvitePage(client, 'send.pendingInvites', '/pending-invites', params, options);
}
