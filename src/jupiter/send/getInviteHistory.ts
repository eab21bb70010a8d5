import type { CallOptions, JupiterTransport } from '../transport.js';
import { getInvitePage, sendInvitePageSchema, type InviteListParams, type SendInvitePage } from './shared.js';

/** Parameters of getInviteHistory: the address and a page from 1. */
export type GetInviteHistoryParams = InviteListParams;

/** The /send/v1/invite-history body: `{invites, hasMoreData}`. */
export const inviteHistoryResponseSchema = sendInvitePageSchema;

/** GET /send/v1/invite-history?address=&page=: invites the address sent that were claimed, clawed back or expired. */
export async function getInviteHistory(
  client: JupiterTransport,
  params: GetInviteHistoryParams,
  options: CallOptions = {},
): Promise<SendInvitePage> {
  return getInvitePage(client, 'send.inviteHistory', '/invite-history', params, options);
}
