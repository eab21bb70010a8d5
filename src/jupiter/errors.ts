import { KeeperError, type ErrorAction } from '../lib/errors.js';

/** Base of every error raised by the Jupiter client. `endpoint` is the logical name, e.g. `ultra.order`. */
export class JupiterError extends KeeperError {
  readonly endpoint: string;
  constructor(
    endpoint: string,
    code: string,
    action: ErrorAction,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, action, `${endpoint}: ${message}`, { ...options, details: { endpoint, ...(options.details ?? {}) } });
    this.endpoint = endpoint;
  }
}

/** The service answered with a non-2xx status. `body` is the service's parsed JSON body (or its text). */
export class HttpStatusError extends JupiterError {
  readonly status: number;
  readonly body: unknown;
  constructor(endpoint: string, status: number, body: unknown, action: ErrorAction, summary: string) {
    const text = describeBody(body);
    super(endpoint, `JUP_HTTP_${status}`, action, `HTTP ${status} ${summary}${text ? `: ${text}` : ''}`, {
      details: { status, body },
    });
    this.status = status;
    this.body = body;
  }
}

/** 400: the request is wrong; repeating it will not help. */
export class BadRequestError extends HttpStatusError {
  constructor(endpoint: string, body: unknown, status = 400) {
    super(endpoint, status, body, 'abandon', 'bad request');
  }
}

/** 401: the API key is missing, unknown or invalid. The bot must stop: every later call would fail too. */
export class UnauthorizedError extends HttpStatusError {
  constructor(endpoint: string, body: unknown) {
    super(endpoint, 401, body, 'halt', 'unauthorized (the API key is missing or invalid)');
  }
}

/** 403: the key may not use this product, or a firewall rule blocked the request. */
export class ForbiddenError extends HttpStatusError {
  constructor(endpoint: string, body: unknown) {
    super(endpoint, 403, body, 'halt', 'forbidden (the API key lacks access to this endpoint, or a firewall rule)');
  }
}

/** 404: the resource (event, market, order, position) does not exist. */
export class NotFoundError extends HttpStatusError {
  constructor(endpoint: string, body: unknown) {
    super(endpoint, 404, body, 'abandon', 'not found');
  }
}

/** 429: the rate budget is spent. `retryAfterMs` is how long the headers say to wait. */
export class RateLimitError extends HttpStatusError {
  readonly retryAfterMs: number;
  constructor(endpoint: string, body: unknown, retryAfterMs: number) {
    super(endpoint, 429, body, 'wait', `too many requests (retry in ${Math.ceil(retryAfterMs)} ms)`);
    this.retryAfterMs = retryAfterMs;
  }
}

/** 5xx: the service failed; a later retry may succeed. */
export class ServerError extends HttpStatusError {
  constructor(endpoint: string, status: number, body: unknown) {
    super(endpoint, status, body, 'retry', 'server error');
  }
}

/** The request did not complete within its timeout. */
export class TimeoutError extends JupiterError {
  readonly timeoutMs: number;
  constructor(endpoint: string, timeoutMs: number, origin?: string) {
    super(endpoint, 'JUP_TIMEOUT', 'retry', `no response${origin ? ` from ${origin}` : ''} within ${timeoutMs} ms`, { details: { timeoutMs } });
    this.timeoutMs = timeoutMs;
  }
}

/** The connection failed (refused, reset, DNS). */
export class NetworkError extends JupiterError {
  /** `origin`: where the request went, scheme and host only (named in the message: which address could not be reached). */
  constructor(endpoint: string, cause: unknown, origin?: string) {
    const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
    super(endpoint, 'JUP_NETWORK', 'retry', `network error${origin ? ` reaching ${origin}` : ''}: ${reason}`, { cause });
  }
}

/** One field that broke the response schema. */
export interface SchemaIssue {
  /** Dotted path of the field, e.g. `routePlan.0.swapInfo.inAmount`; `(root)` for the whole body. */
  path: string;
  message: string;
}

/**
 * The response body does not match the endpoint's schema (or is not JSON at all). Accepting it could be
 * dangerous (a missing requestId, a non-numeric amount), so the call fails and names the fields.
 */
export class SchemaError extends JupiterError {
  readonly issues: readonly SchemaIssue[];
  constructor(endpoint: string, issues: readonly SchemaIssue[]) {
    const list = issues
      .slice(0, 5)
      .map((i) => `${i.path}: ${i.message}`)
      .join('; ');
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
    super(endpoint, 'JUP_SCHEMA', 'abandon', `response does not match the schema: ${list}${more}`, {
      details: { issues },
    });
    this.issues = issues;
  }
}

/** A client-side limit was broken; the request was not sent. `rule` names it, e.g. `prediction.price.range`. */
export class LimitError extends JupiterError {
  readonly rule: string;
  constructor(endpoint: string, rule: string, message: string) {
    super(endpoint, 'JUP_LIMIT', 'abandon', `${rule}: ${message}`, { details: { rule } });
    this.rule = rule;
  }
}

/** Meaning of the Ultra `/order` errorCode values, by router (jupiter-api.md §1.2). */
export const ORDER_ERROR_MEANINGS: Readonly<Record<1 | 2 | 3, { default: string; jupiterz: string }>> = {
  1: { default: 'insufficient funds', jupiterz: 'insufficient balance to fund the swap' },
  2: { default: 'insufficient SOL for gas', jupiterz: 'missing associated token account' },
  3: { default: 'below the gasless minimum', jupiterz: 'the quote could not be built' },
};

/**
 * Ultra `/order` answered with an errorCode instead of a transaction. The documented codes 1 to 3 have their own
 * error codes (`JUP_ORDER_1`..`3`); any other is still the service refusing the order (`JUP_ORDER_UNDOCUMENTED`),
 * never a malformed response.
 */
export class OrderError extends JupiterError {
  readonly errorCode: number;
  readonly meaning: string;
  constructor(endpoint: string, errorCode: number, router: string | undefined, serviceMessage: string | undefined) {
    const entry = errorCode === 1 || errorCode === 2 || errorCode === 3 ? ORDER_ERROR_MEANINGS[errorCode] : undefined;
    const meaning = entry ? (router === 'jupiterz' ? entry.jupiterz : entry.default) : 'an undocumented order error';
    super(endpoint, entry ? `JUP_ORDER_${errorCode}` : 'JUP_ORDER_UNDOCUMENTED', 'abandon', `order refused with errorCode ${errorCode} (${meaning})`, {
      details: { errorCode, router, serviceMessage },
    });
    this.errorCode = errorCode;
    this.meaning = meaning;
  }
}

/** Documented meaning of each execute code (jupiter-api.md §1.3). */
export const EXECUTE_CODE_MEANINGS: Readonly<Record<number, string>> = {
  0: 'success',
  [-1]: 'missing cached order (requestId expired or not found)',
  [-2]: 'invalid signed transaction',
  [-3]: 'invalid message bytes (the transaction was modified)',
  [-4]: 'missing request id',
  [-5]: 'missing signed transaction',
  [-1000]: 'failed to land',
  [-1001]: 'unknown error',
  [-1002]: 'invalid transaction',
  [-1003]: 'transaction not fully signed',
  [-1004]: 'invalid block height',
  [-1005]: 'transaction expired',
  [-1006]: 'timed out',
  [-1007]: 'gasless unsupported wallet',
  [-2000]: 'RFQ failed to land',
  [-2001]: 'RFQ unknown error',
  [-2002]: 'RFQ invalid payload',
  [-2003]: 'RFQ quote expired',
  [-2004]: 'RFQ swap rejected',
  [-2005]: 'RFQ internal error',
  6001: 'slippage tolerance exceeded',
  6008: 'not enough account keys',
  6014: 'incorrect token program id',
  6017: 'exact out amount not matched',
  6024: 'insufficient funds',
  6025: 'invalid token account',
};

/** How an execute code is to be treated by whoever owns the intent. */
export type ExecuteCodeClass = 'success' | 'request' | 'landing' | 'rfq' | 'program' | 'unknown';

/** Classifies an execute code: service-level request errors, landing errors (-1000 range), RFQ (-2000), program. */
export function classifyExecuteCode(code: number): ExecuteCodeClass {
  if (code === 0) return 'success';
  if (code <= -1 && code >= -99) return 'request';
  if (code <= -1000 && code > -2000) return 'landing';
  if (code <= -2000 && code > -3000) return 'rfq';
  if (code > 0) return 'program';
  return 'unknown';
}

/** Documented meaning of an execute code, or a generic description for undocumented ones. */
export function describeExecuteCode(code: number): string {
  const known = EXECUTE_CODE_MEANINGS[code];
  if (known) return known;
  switch (classifyExecuteCode(code)) {
    case 'landing':
      return 'aggregator failed to land the transaction';
    case 'rfq':
      return 'RFQ market maker failure';
    case 'program':
      return `custom program error #${code}`;
    default:
      return 'undocumented code';
  }
}

/**
 * An execute endpoint reported failure (a `Failed` status, or an HTTP error carrying a code). The signature, when
 * present, lets the owner of the intent check the chain before deciding anything.
 */
export class ExecuteError extends JupiterError {
  readonly executeCode: number;
  readonly meaning: string;
  readonly codeClass: ExecuteCodeClass;
  readonly signature: string | undefined;
  constructor(endpoint: string, executeCode: number, serviceError: string | undefined, signature: string | undefined) {
    const meaning = describeExecuteCode(executeCode);
    const said = serviceError && serviceError !== meaning ? `: ${serviceError.slice(0, 200)}` : '';
    super(endpoint, `JUP_EXECUTE_${executeCode}`, 'abandon', `execute failed with code ${executeCode} (${meaning})${said}`, {
      details: { executeCode, serviceError, signature },
    });
    this.executeCode = executeCode;
    this.meaning = meaning;
    this.codeClass = classifyExecuteCode(executeCode);
    this.signature = signature;
  }
}

function describeBody(body: unknown): string {
  if (body === undefined || body === null || body === '') return '';
  if (typeof body === 'string') return body.slice(0, 300);
  if (typeof body === 'object') {
    const o = body as Record<string, unknown>;
    const parts = [o.error, o.message, o.cause, o.errorCode, o.code].filter((v) => typeof v === 'string' || typeof v === 'number');
    if (parts.length > 0) return parts.map(String).join(' / ').slice(0, 300);
    return JSON.stringify(body).slice(0, 300);
  }
  return typeof body === 'number' || typeof body === 'boolean' ? String(body) : '';
}
