import { z } from 'zod';
import { ExecuteError, JupiterError } from '../errors.js';

/**
 * The Stripe-like error body of the Prediction API: `{type, message, code?, param?, request_id, doc_url?}`.
 * Parsed leniently (only `message` is needed) so that a body from the gateway still yields its text.
 */
export const predictionErrorBodySchema = z.object({
  type: z.string().optional(),
  message: z.string().optional(),
  error: z.string().optional(),
  code: z.union([z.string(), z.number()]).optional(),
  param: z.string().optional(),
  request_id: z.string().optional(),
});
/** A parsed Prediction API error body. */
export interface PredictionErrorBody {
  type: string | undefined;
  message: string | undefined;
  code: string | number | undefined;
  requestId: string | undefined;
}

/** Reads a Prediction API error body; undefined when the body is not an object. */
export function readPredictionErrorBody(body: unknown): PredictionErrorBody | undefined {
  const parsed = predictionErrorBodySchema.safeParse(body);
  if (!parsed.success || typeof body !== 'object' || body === null) return undefined;
  const b = parsed.data;
  return { type: b.type, message: b.message ?? b.error, code: b.code, requestId: b.request_id };
}

/** Code of the error a claim gets while its market has not settled. */
export const MARKET_NOT_SETTLED_CODE = 'JUP_PREDICTION_MARKET_NOT_SETTLED';
/** Code of the error a claim gets on a market that settles automatically. */
export const NO_CLAIM_REQUIRED_CODE = 'JUP_PREDICTION_NO_CLAIM_REQUIRED';
/** Code of the error a claim gets on a position whose payout was claimed already. */
export const ALREADY_CLAIMED_CODE = 'JUP_PREDICTION_ALREADY_CLAIMED';

/**
 * A claim was refused because the market has not settled yet (HTTP 400 "Market not settled yet"). Nothing is
 * wrong with the position: try again after settlement. Recognise it by class or by `code`, never by message.
 */
export class MarketNotSettledError extends JupiterError {
  readonly status: number;
  readonly body: unknown;
  constructor(endpoint: string, status: number, body: unknown) {
    super(endpoint, MARKET_NOT_SETTLED_CODE, 'abandon', 'market not settled yet; claim again after settlement', { details: { status, body } });
    this.status = status;
    this.body = body;
  }
}

/** A claim was refused because the market pays out automatically ("no claim required"); nothing to do. */
export class ClaimNotRequiredError extends JupiterError {
  readonly status: number;
  readonly body: unknown;
  constructor(endpoint: string, status: number, body: unknown) {
    super(endpoint, NO_CLAIM_REQUIRED_CODE, 'abandon', 'no claim required; the market settles automatically', { details: { status, body } });
    this.status = status;
    this.body = body;
  }
}

/**
 * A claim was refused because the position's payout was claimed already (by its owner elsewhere, another keeper, or
 * the venue's auto-claim after a day): the claim's effect is there; nothing to do.
 */
export class AlreadyClaimedError extends JupiterError {
  readonly status: number;
  readonly body: unknown;
  constructor(endpoint: string, status: number, body: unknown) {
    super(endpoint, ALREADY_CLAIMED_CODE, 'abandon', 'position already claimed; its payout was made', { details: { status, body } });
    this.status = status;
    this.body = body;
  }
}

/** Execute code used for prediction failures, which carry no numeric code: the documented "unknown error". */
export const PREDICTION_EXECUTE_UNKNOWN_CODE = -1001;

/**
 * Prediction `/execute` failed: a `Failed` status, or a 400 ErrorResponse. An ExecuteError (so intent owners treat
 * it like any execute failure) that also carries the service's `type`, `message` and `request_id`.
 */
export class PredictionExecuteError extends ExecuteError {
  /** ErrorResponse `type`, e.g. `invalid_request_error`; undefined for a `Failed` status. */
  readonly errorType: string | undefined;
  /** The service's own message (`message` of an ErrorResponse, `error` of a `Failed` result). */
  readonly serviceMessage: string | undefined;
  /** ErrorResponse `code`, when sent. */
  readonly serviceCode: string | number | undefined;
  readonly requestId: string | undefined;
  /** HTTP status when the failure came as an error response; undefined for a 200 with `status: Failed`. */
  readonly httpStatus: number | undefined;
  constructor(
    endpoint: string,
    info: { type?: string | undefined; message?: string | undefined; code?: string | number | undefined; requestId?: string | undefined; httpStatus?: number | undefined; signature?: string | undefined },
  ) {
    const text = [info.type, info.message].filter((s): s is string => typeof s === 'string' && s !== '').join(': ');
    super(endpoint, PREDICTION_EXECUTE_UNKNOWN_CODE, text || undefined, info.signature);
    // Put the service's words in the message: ExecuteError alone would only say "unknown error".
    if (text) this.message = `${this.message}: ${text}`;
    this.errorType = info.type;
    this.serviceMessage = info.message;
    this.serviceCode = info.code;
    this.requestId = info.requestId;
    this.httpStatus = info.httpStatus;
  }
}
