import { BadRequestError, type JupiterError } from '../errors.js';

/** Routing error codes the Metis docs list (jupiter-api.md §2); the service may send others, e.g. `INSUFFICIENT_FUNDS`. */
export const ROUTE_ERROR_CODES = [
  'NO_ROUTES_FOUND',
  'COULD_NOT_FIND_ANY_ROUTE',
  'ROUTE_PLAN_DOES_NOT_CONSUME_ALL_THE_AMOUNT',
  'MARKET_NOT_FOUND',
  'TOKEN_NOT_TRADABLE',
  'NOT_SUPPORTED',
  'CIRCULAR_ARBITRAGE_IS_DISABLED',
  'CANNOT_COMPUTE_OTHER_AMOUNT_THRESHOLD',
  'MAX_ACCOUNT_GREATER_THAN_MAX',
  'INVALID_COMPUTE_UNIT_PRICE_AND_PRIORITIZATION_FEE',
  'FAILED_TO_GET_SWAP_AND_ACCOUNT_METAS',
] as const;

/**
 * A Swap V1 request was refused with `{"error", "errorCode"}` (HTTP 4xx), e.g. no route for the pair.
 * `routeErrorCode` is the service's code as sent; `code` is `JUP_ROUTE_<errorCode>`. Retrying the same request
 * will not help; a different amount, pair or DEX set might.
 */
export class RouteError extends BadRequestError {
  /** The service's `errorCode`, e.g. `COULD_NOT_FIND_ANY_ROUTE`. */
  readonly routeErrorCode: string;
  /** The service's `error` text, for display only. */
  readonly serviceMessage: string | undefined;
  override readonly code: string;

  constructor(endpoint: string, status: number, body: unknown, routeErrorCode: string, serviceMessage: string | undefined) {
    super(endpoint, body, status);
    this.routeErrorCode = routeErrorCode;
    this.serviceMessage = serviceMessage;
    this.code = `JUP_ROUTE_${routeErrorCode.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
  }
}

const GENERIC_STATUSES = new Set([401, 403, 404, 429]);

/**
 * mapError for the Swap V1 endpoints: a 4xx body carrying a string `errorCode` becomes RouteError. Auth, not-found,
 * rate-limit and 5xx statuses keep their generic classes (and their retry behaviour).
 */
export function routeErrorFromBody(endpoint: string): (status: number, body: unknown) => JupiterError | undefined {
  return (status, body) => {
    if (status < 400 || status >= 500 || GENERIC_STATUSES.has(status)) return undefined;
    if (typeof body !== 'object' || body === null) return undefined;
    const { errorCode, error } = body as { errorCode?: unknown; error?: unknown };
    if (typeof errorCode !== 'string' || errorCode === '') return undefined;
    return new RouteError(endpoint, status, body, errorCode, typeof error === 'string' ? error : undefined);
  };
}
