import type { CallOptions, JupiterTransport } from '../transport.js';
import { craftSend, type CraftSendParams } from './craftSend.js';
import { craftClawback, type CraftClawbackParams } from './craftClawback.js';
import { getPendingInvites, type GetPendingInvitesParams } from './getPendingInvites.js';
import { getInviteHistory, type GetInviteHistoryParams } from './getInviteHistory.js';

export * from './shared.js';
export * from './craftSend.js';
export * from './craftClawback.js';
export * from './getPendingInvites.js';
export * from './getInviteHistory.js';
export * from './inviteCode.js';

/** The Send endpoints bound to one transport (the invite-code helpers need no transport and are exported as is). */
export function bindSend(t: JupiterTransport) {
  return {
    craftSend: (p: CraftSendParams, o?: CallOptions) => craftSend(t, p, o),
    craftClawback: (p: CraftClawbackParams, o?: CallOptions) => craftClawback(t, p, o),
    getPendingInvites: (p: GetPendingInvitesParams, o?: CallOptions) => getPendingInvites(t, p, o),
    getInviteHistory: (p: GetInviteHistoryParams, o?: CallOptions) => getInviteHistory(t, p, o),
  };
}

/** The bound Send endpoints. */
export type SendEndpoints = ReturnType<typeof bindSend>;
