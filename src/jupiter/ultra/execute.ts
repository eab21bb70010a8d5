import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { ExecuteError, LimitError } from '../errors.js';
import { base64Tx, pubkey, u64 } from '../schemas.js';

/** Body of POST /ultra/v1/execute. */
export interface ExecuteOrderParams {
  /** Base64 of the transaction returned by /order, with the taker's signature added and nothing else changed. */
  signedTransaction: string;
  /** The requestId returned with that transaction. */
  requestId: string;
}

/** One swap leg as execute reports it. */
export const swapEventSchema = z.object({
  inputMint: pubkey,
  inputAmount: u64,
  outputMint: pubkey,
  outputAmount: u64,
});

/** The /ultra/v1/execute body (jupiter-api.md §1.3). */
export const executeResponseSchema = z.object({
  status: z.enum(['Success', 'Failed']),
  signature: z.string().optional(),
  /** Slot as a string; "0" when the transaction never landed. */
  slot: z.string().regex(/^\d+$/, 'expected a slot number as a string').optional(),
  code: z.number().int(),
  error: z.string().optional(),
  totalInputAmount: u64.optional(),
  totalOutputAmount: u64.optional(),
  inputAmountResult: u64.optional(),
  outputAmountResult: u64.optional(),
  swapEvents: z.array(swapEventSchema).optional(),
});

/** A parsed execute result. */
export type UltraExecuteResult = z.output<typeof executeResponseSchema>;

/** Statuses that keep their gateway meaning whatever the body says: 401 halts, 403 halts, 404, 429 waits. */
const GATEWAY_STATUSES = new Set([401, 403, 404, 429]);

/**
 * Maps an HTTP error body of an execute endpoint to ExecuteError: a body with an execute code (`{error, code: -1}`),
 * or a `Failed` body carrying a signature (trigger's `{"code":500, "signature", "status":"Failed"}`, whose HTTP-like
 * code is reported as -1001, unknown). Gateway statuses and bodies without either keep their generic error class.
 */
export function executeErrorFromBody(endpoint: string, status: number, body: unknown): ExecuteError | undefined {
  if (GATEWAY_STATUSES.has(status) || typeof body !== 'object' || body === null) return undefined;
  const { code, error, signature, status: bodyStatus } = body as { code?: unknown; error?: unknown; signature?: unknown; status?: unknown };
  const text = typeof error === 'string' ? error : undefined;
  const sig = typeof signature === 'string' && signature !== '' ? signature : undefined;
  const httpLike = typeof code === 'number' && code >= 100 && code <= 599;
  if (typeof code === 'number' && Number.isInteger(code) && !httpLike) return new ExecuteError(endpoint, code, text, sig);
  if (bodyStatus === 'Failed' || sig !== undefined) return new ExecuteError(endpoint, -1001, text, sig);
  return undefined;
}

/**
 * POST /ultra/v1/execute: submits the signed transaction. Never retried here: the service is idempotent for the
 * same requestId and signed bytes for about two minutes, and the intent ledger decides when to send them again.
 * Throws ExecuteError (with the signature, when known) when the status is `Failed` or the body carries a code.
 */
export async function executeOrder(client: JupiterTransport, params: ExecuteOrderParams, options: CallOptions = {}): Promise<UltraExecuteResult> {
  if (!params.requestId) throw new LimitError('ultra.execute', 'execute.requestId.required', 'requestId is required');
  if (!base64Tx.safeParse(params.signedTransaction).success) {
    throw new LimitError('ultra.execute', 'execute.signedTransaction.base64', 'signedTransaction must be a non-empty base64 string');
  }
  const result = await client.request({
    endpoint: 'ultra.execute',
    method: 'POST',
    path: '/ultra/v1/execute',
    body: { signedTransaction: params.signedTransaction, requestId: params.requestId },
    schema: executeResponseSchema,
    retry: false,
    mapError: (status, body) => executeErrorFromBody('ultra.execute', status, body),
    signal: options.signal,
  });
  if (result.status === 'Failed' || result.code !== 0) {
    // A `Failed` status with code 0 contradicts itself; report it as the documented "unknown error".
    const code = result.code === 0 ? -1001 : result.code;
    throw new ExecuteError('ultra.execute', code, result.error, result.signature);
  }
  return result;
}
