import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError, SchemaError, type JupiterError } from '../errors.js';
import { base64Tx } from '../schemas.js';
import { executeErrorFromBody } from '../ultra/execute.js';
import { PREDICTION_PATH } from './common.js';
import { PredictionExecuteError, readPredictionErrorBody } from './errors.js';

/** Body of POST /prediction/v1/execute. */
export interface ExecutePredictionOrderParams {
  /** Base64 of the built transaction with the owner's signature added and nothing else changed. */
  signedTransaction: string;
  /** The build's `execution.context`, unchanged; the service checks it against the transaction. */
  context?: Readonly<Record<string, unknown>> | undefined;
  /** Client correlation id, echoed back. */
  requestId?: string | undefined;
}

/** The POST /execute body. */
export const executePredictionResponseSchema = z.object({
  status: z.enum(['Success', 'Failed']),
  /** Base58 signature; null when nothing landed. */
  signature: z.string().nullish(),
  error: z.string().nullish(),
  requestId: z.string().optional(),
});
/** A parsed successful execute result (a failure throws). */
export type PredictionExecuteResult = z.output<typeof executePredictionResponseSchema> & { status: 'Success'; signature: string };

const ENDPOINT = 'prediction.execute';

/**
 * Maps a 400 body of /execute to an execute error: a numeric `code` through the shared Ultra mapping, a Stripe-like
 * ErrorResponse to PredictionExecuteError with its `type` and `message`. Other statuses keep their generic class
 * (401 halts, 429 waits, 5xx is reported as a server error; never retried here).
 */
export function predictionExecuteErrorFromBody(status: number, body: unknown): JupiterError | undefined {
  if (status !== 400) return undefined;
  const numeric = executeErrorFromBody(ENDPOINT, status, body);
  if (numeric) return numeric;
  const read = readPredictionErrorBody(body);
  if (!read || (read.type === undefined && read.message === undefined)) return undefined;
  return new PredictionExecuteError(ENDPOINT, { type: read.type, message: read.message, code: read.code, requestId: read.requestId, httpStatus: status });
}

/**
 * POST /prediction/v1/execute: submits a signed build (required for Jupiter Forecast `atomic_swap` orders). Never
 * retried: the intent ledger decides whether the same bytes are sent again. A `Failed` status throws
 * PredictionExecuteError (an ExecuteError) carrying the signature when present.
 */
export async function executePredictionOrder(
  client: JupiterTransport,
  params: ExecutePredictionOrderParams,
  options: CallOptions = {},
): Promise<PredictionExecuteResult> {
  if (!base64Tx.safeParse(params.signedTransaction).success) {
    throw new LimitError(ENDPOINT, 'prediction.signedTransaction.base64', 'signedTransaction must be a non-empty base64 string');
  }
  const result = await client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: `${PREDICTION_PATH}/execute`,
    body: { signedTransaction: params.signedTransaction, context: params.context, requestId: params.requestId },
    schema: executePredictionResponseSchema,
    retry: false,
    mapError: predictionExecuteErrorFromBody,
    signal: options.signal,
  });
  if (result.status === 'Failed') {
    throw new PredictionExecuteError(ENDPOINT, { message: result.error ?? undefined, signature: result.signature ?? undefined });
  }
  const { signature } = result;
  if (!signature) throw new SchemaError(ENDPOINT, [{ path: 'signature', message: 'missing although the status is Success' }]);
  return { ...result, status: 'Success', signature };
}
