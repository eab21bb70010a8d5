import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { ExecuteError, LimitError, SchemaError } from '../errors.js';
import { base64Tx, pubkey } from '../schemas.js';
import { executeErrorFromBody } from '../ultra/execute.js';

const ENDPOINT = 'recurring.execute';

/**
 * Code given to a `Failed` recurring execute: the response carries no numeric code, so the documented
 * "unknown error" (-1001) is used and the service's text goes into the error's details.
 */
export const RECURRING_FAILED_CODE = -1001;

/** Body of POST /recurring/v1/execute. */
export interface ExecuteRecurringOrderParams {
  /** Base64 of a transaction from createOrder, cancelOrder, priceDeposit or priceWithdraw, signed by the user. */
  signedTransaction: string;
  /** The requestId returned with that transaction. */
  requestId: string;
}

/** The /recurring/v1/execute body (jupiter-api.md §6): `{signature, status, order, error}`, no numeric code. */
export const executeRecurringOrderResponseSchema = z.object({
  status: z.enum(['Success', 'Failed']),
  /** Base58 transaction signature; required on Success (checked after parsing), possibly absent on failure. */
  signature: z.string().optional(),
  /** The recurring order account (base58); null (or "") on failure, so only a non-empty value is checked. */
  order: z
    .union([pubkey, z.literal('')])
    .nullish()
    .transform((v) => v || null),
  /** The service's failure text, e.g. "Insufficient funds for the operation requested."; null on success. */
  error: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
});

/** A successful recurring execute: the signature is always present. */
export type RecurringExecuteResult = Omit<z.output<typeof executeRecurringOrderResponseSchema>, 'signature'> & { signature: string };

/**
 * POST /recurring/v1/execute: submits a signed recurring transaction. Never retried here (the intent ledger
 * decides). A `Failed` status throws ExecuteError with code -1001 (unknown), the signature when present and the
 * service's text in `details.serviceError`; an HTTP error body with a `code` throws ExecuteError with that code.
 */
export async function executeRecurringOrder(client: JupiterTransport, params: ExecuteRecurringOrderParams, options: CallOptions = {}): Promise<RecurringExecuteResult> {
  if (!params.requestId) throw new LimitError(ENDPOINT, 'recurring.requestId.required', 'requestId is required');
  if (!base64Tx.safeParse(params.signedTransaction).success) {
    throw new LimitError(ENDPOINT, 'recurring.signedTransaction.base64', 'signedTransaction must be a non-empty base64 string');
  }
  const result = await client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/recurring/v1/execute',
    body: { requestId: params.requestId, signedTransaction: params.signedTransaction },
    schema: executeRecurringOrderResponseSchema,
    retry: false,
    mapError: (status, body) => executeErrorFromBody(ENDPOINT, status, body),
    signal: options.signal,
  });
  if (result.status === 'Failed') {
    throw new ExecuteError(ENDPOINT, RECURRING_FAILED_CODE, result.error ?? undefined, result.signature || undefined);
  }
  const signature = result.signature;
  if (!signature) throw new SchemaError(ENDPOINT, [{ path: 'signature', message: 'missing on a Success status' }]);
  return { ...result, signature };
}
