import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { base64Tx, pubkey } from '../schemas.js';
import { SEND_PATH } from './shared.js';

/** Body of POST /send/v1/craft-clawback. */
export interface CraftClawbackParams {
  /** The invite's PDA (invitePdaFromCode(code) or deriveInvitePda(inviteSigner)). */
  invitePDA: string;
  /** The wallet that funded the invite; it receives the full amount back. */
  sender: string;
}

/** The /send/v1/craft-clawback body: `{tx}`. */
export const craftClawbackResponseSchema = z.object({
  /** Base64 unsigned transaction, to be signed by the sender. */
  tx: base64Tx,
});

/** A parsed craft-clawback result. */
export type CraftClawbackResult = z.output<typeof craftClawbackResponseSchema>;

/** POST /send/v1/craft-clawback: an unsigned transaction returning an unclaimed invite's funds to its sender. */
export async function craftClawback(client: JupiterTransport, params: CraftClawbackParams, options: CallOptions = {}): Promise<CraftClawbackResult> {
  for (const [name, value] of Object.entries({ invitePDA: params.invitePDA, sender: params.sender })) {
    if (!pubkey.safeParse(value).success) {
      throw new LimitError('send.craftClawback', `send.${name}.address`, `${name} is not a base58 address: ${JSON.stringify(value)}`);
    }
  }
  return client.request({
    endpoint: 'send.craftClawback',
    method: 'POST',
    path: `${SEND_PATH}/craft-clawback`,
    body: { invitePDA: params.invitePDA, sender: params.sender },
    schema: craftClawbackResponseSchema,
    signal: options.signal,
  });
}
