import { z } from 'zod';

/** JSON-RPC error codes the simulator's Solana RPC answers with, as an Agave node does. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** sendTransaction's preflight simulation failed. */
  preflightFailure: -32002,
  signatureVerificationFailure: -32003,
  /** The block of a slot not yet confirmed. */
  blockNotAvailable: -32004,
  transactionVersionNotSupported: -32015,
  minContextSlotNotReached: -32016,
} as const;

/** An error a method answers with: becomes the response's `error` object. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** A semantic parameter error, worded as Agave words them ("Invalid param: not a Token account"). */
export function invalidParam(message: string): RpcError {
  return new RpcError(RpcCode.invalidParams, `Invalid param: ${message}`);
}

/** One positional parameter: its name (used in error messages) and schema. */
export type ParamSpec = readonly [name: string, schema: z.ZodType];

type Args<P extends readonly ParamSpec[]> = { -readonly [K in keyof P]: P[K] extends readonly [string, infer S extends z.ZodType] ? z.output<S> : never };

/** A method of a JSON-RPC surface whose handlers get an environment `E`. */
export interface RpcMethod<E> {
  call(params: readonly unknown[], env: E): unknown;
}

/** Methods by name. */
export type MethodTable<E> = Readonly<Record<string, RpcMethod<E>>>;

/**
 * Defines a method from its positional parameters and a handler. Parameters are validated before the handler runs;
 * a bad one is answered with -32602 naming it ("Invalid params: pubkey: is not a valid base58 address").
 */
export function method<E, const P extends readonly ParamSpec[]>(params: P, handler: (args: Args<P>, env: E) => unknown): RpcMethod<E> {
  return {
    call(raw, env) {
      if (raw.length > params.length) {
        throw new RpcError(RpcCode.invalidParams, `Invalid params: expected at most ${params.length} parameter(s), got ${raw.length}`);
      }
      const values = params.map(([name, schema], i) => {
        const r = schema.safeParse(raw[i]);
        if (r.success) return r.data;
        const detail = r.error.issues
          .slice(0, 3)
          .map((issue) => `${[name, ...issue.path.map(String)].join('.')}: ${issue.message}`)
          .join('; ');
        throw new RpcError(RpcCode.invalidParams, `Invalid params: ${detail}`);
      });
      // The values were produced by the schemas of `params`, position by position.
      return handler(values as Args<P>, env);
    },
  };
}

const requestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: z.unknown().optional(),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
});

type Id = string | number | null;
type Response = { jsonrpc: '2.0'; id: Id } & ({ result: unknown } | { error: { code: number; message: string; data?: unknown } });

/** Hooks of a JSON-RPC surface. */
export interface DispatchOptions {
  /** Called with an unexpected error a handler threw (answered as -32603). */
  onInternalError(err: unknown, method: string): void;
}

/**
 * Answers a JSON-RPC 2.0 body (one request or a batch). Returns the response text, or undefined when the body held
 * only notifications (requests without an id), which get no answer. Never throws.
 */
export async function dispatchJsonRpc<E>(text: string, methods: MethodTable<E>, env: E, options: DispatchOptions): Promise<string | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return serialize(errorResponse(null, new RpcError(RpcCode.parseError, 'Parse error')));
  }
  if (Array.isArray(body)) {
    if (body.length === 0) return serialize(errorResponse(null, new RpcError(RpcCode.invalidRequest, 'Invalid request')));
    const responses: Response[] = [];
    for (const item of body) {
      const r = await answer(item, methods, env, options);
      if (r) responses.push(r);
    }
    return responses.length > 0 ? serialize(responses) : undefined;
  }
  const r = await answer(body, methods, env, options);
  return r ? serialize(r) : undefined;
}

async function answer<E>(item: unknown, methods: MethodTable<E>, env: E, options: DispatchOptions): Promise<Response | undefined> {
  const parsed = requestSchema.safeParse(item);
  if (!parsed.success) {
    const id = item && typeof item === 'object' && 'id' in item ? idOf(item.id) : null;
    return errorResponse(id, new RpcError(RpcCode.invalidRequest, 'Invalid request'));
  }
  const request = parsed.data;
  const isNotification = request.id === undefined;
  const id = request.id ?? null;
  const m = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  if (!m) return isNotification ? undefined : errorResponse(id, new RpcError(RpcCode.methodNotFound, 'Method not found'));
  try {
    const params = request.params ?? [];
    // Solana methods take positional parameters only.
    if (!Array.isArray(params)) throw new RpcError(RpcCode.invalidParams, 'Invalid params: expected an array of positional parameters');
    const result = await m.call(params, env);
    return isNotification ? undefined : { jsonrpc: '2.0', result: result ?? null, id };
  } catch (err) {
    if (err instanceof RpcError) return isNotification ? undefined : errorResponse(id, err);
    options.onInternalError(err, request.method);
    return isNotification ? undefined : errorResponse(id, new RpcError(RpcCode.internalError, 'Internal error'));
  }
}

function idOf(value: unknown): Id {
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

function errorResponse(id: Id, err: RpcError): Response {
  const error = err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data };
  return { jsonrpc: '2.0', error, id };
}

/** JSON with bigints written as JSON numbers, as an RPC node writes u64 values. */
export function serialize(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}
