import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { ExecuteError, LimitError, SchemaError } from '../errors.js';
import { base64Tx } from '../schemas.js';
import { executeErrorFromBody } from '../ultra/execute.js';

const ENDPOINT = 'trigger.execute';

/** Body of POST /trigger/v1/execute. */
export interface ExecuteTriggerOrderParams {
  /** Base64 of a transaction from createOrder, cancelOrder or cancelOrders, signed by the maker and otherwise unchanged. */
  signedTransaction: string;
  /** The requestId returned with that transaction (shared by every transaction of one cancelOrders call). */
  requestId: string;
}

/** The /trigger/v1/execute body (jupiter-api.md §5). */
export const executeTriggerOrderResponseSchema = z.object({
  status: z.enum(['Success', 'Failed']),
  /** Base58 transaction signature; required on Success (checked after parsing). */
  signature: z.string().optional(),
  /**
   * 0 on success when present. The official success examples (operation and schema level) are `{signature,
   * status}` with no `code` (jupiter-api.md §13 item 10), so a missing code is a success code.
   */
  code: z.number().int().optional(),
  error: z.string().optional(),
  cause: z.string().optional(),
});

/** A successful trigger execute: the signature is always present. */
export type TriggerExecuteResult = Omit<z.output<typeof executeTriggerOrderResponseSchema>, 'signature'> & { signature: string };

/**
 * POST /trigger/v1/execute: submits a signed trigger transaction. Never retried here (the intent ledger decides).
 * Throws ExecuteError (with the signature, when known) when the status is `Failed` or an error body carries a code,
 * e.g. `{"error":"custom program error code: 1","code":500,"signature":"…","status":"Failed"}`. In those bodies
 * `code` is the HTTP-like status (400, 500), not an Ultra execute code; the service's text is in `details`.
 */
export async function executeTriggerOrder(client: JupiterTransport, params: ExecuteTriggerOrderParams, options: CallOptions = {}): Promise<TriggerExecuteResult> {
  if (!params.requestId) throw new LimitError(ENDPOINT, 'trigger.requestId.required', 'requestId is required');
  if (!base64Tx.safeParse(params.signedTransaction).success) {
    throw new LimitError(ENDPOINT, 'trigger.signedTransaction.base64', 'signedTransaction must be a non-empty base64 string');
  }
  const result = await client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/trigger/v1/execute',
    body: { requestId: params.requestId, signedTransaction: params.signedTransaction },
    schema: executeTriggerOrderResponseSchema,
    retry: false,
    mapError: (status, body) => executeErrorFromBody(ENDPOINT, status, withCause(body)),
    signal: options.signal,
  });
  const signature = result.signature || undefined;
  if (result.status === 'Failed' || (result.code ?? 0) !== 0) {
    // A `Failed` status with code 0 (or none) contradicts itself; report it as the documented "unknown error".
    const code = result.code === undefined || result.code === 0 ? -1001 : result.code;
    throw new ExecuteError(ENDPOINT, code, joinText(result.error, result.cause), signature);
  }
  if (signature === undefined) throw new SchemaError(ENDPOINT, [{ path: 'signature', message: 'missing on a Success status' }]);
  return { ...result, signature };
}

/** Folds a trigger error body's `cause` into its `error` text, so ExecuteError's serviceError keeps both. */
function withCause(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const { error, cause } = body as { error?: unknown; cause?: unknown };
  if (typeof cause !== 'string' || cause === '') return body;
  return { ...body, error: joinText(typeof error === 'string' ? error : undefined, cause) };
}

function joinText(...parts: (string | undefined)[]): string | undefined {
  const text = parts.filter((p) => p).join(': ');
  return text || undefined;
}
