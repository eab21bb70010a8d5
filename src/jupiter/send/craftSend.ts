import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { base64Tx, pubkey, u64Loose } from '../schemas.js';
import { U64_MAX } from '../../lib/amounts.js';
import { SEND_PATH } from './shared.js';

/** Body of POST /send/v1/craft-send. */
export interface CraftSendParams {
  /** Public key of the invite keypair (inviteKeypairFromCode(code).publicKey), never the code itself. */
  inviteSigner: string;
  /** Wallet that funds the invite and the fees. */
  sender: string;
  /** Amount in base units of `mint`; must be greater than 0. */
  amount: bigint;
  /** Token mint; the service defaults to wSOL when absent. */
  mint?: string | undefined;
}

/** The /send/v1/craft-send body: the transaction, the invite's expiry and the fees it costs. */
export const craftSendResponseSchema = z.object({
  /** Base64 unsigned transaction; must be signed by both the sender and the invite keypair. */
  tx: base64Tx,
  /** When the invite expires and is clawed back (ISO string in the examples; kept as sent). */
  expiry: z.union([z.string().min(1), z.number().transform((n) => String(n))]),
  /** Network fees and token-account rent, in lamports. */
  totalFeeLamports: u64Loose,
});

/** A parsed craft-send result. */
export type CraftSendResult = z.output<typeof craftSendResponseSchema>;

/**
 * POST /send/v1/craft-send: an unsigned transaction that moves `amount` of `mint` into an invite claimable with the
 * invite code. Addresses and the amount are checked before the request (LimitError).
 */
export async function craftSend(client: JupiterTransport, params: CraftSendParams, options: CallOptions = {}): Promise<CraftSendResult> {
  const fail = (rule: string, msg: string): never => {
    throw new LimitError('send.craftSend', rule, msg);
  };
  for (const [name, value] of Object.entries({ inviteSigner: params.inviteSigner, sender: params.sender, mint: params.mint })) {
    if (value !== undefined && !pubkey.safeParse(value).success) fail(`send.${name}.address`, `${name} is not a base58 address: ${JSON.stringify(value)}`);
  }
  if (params.amount <= 0n) fail('send.amount.positive', `amount must be greater than 0, got ${params.amount}`);
  if (params.amount > U64_MAX) fail('send.amount.u64', 'amount does not fit in a u64');
  return client.request({
    endpoint: 'send.craftSend',
    method: 'POST',
    path: `${SEND_PATH}/craft-send`,
    body: { inviteSigner: params.inviteSigner, sender: params.sender, amount: params.amount, ...(params.mint === undefined ? {} : { mint: params.mint }) },
    schema: craftSendResponseSchema,
    signal: options.signal,
  });
}
