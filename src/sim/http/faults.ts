import { z } from 'zod';

/** Faults the simulator can inject into its Jupiter API, for tests and demos of the bot's resilience. */
export const FAULT_KINDS = [
  'latency',
  'rate-limit',
  'server-error',
  'malformed-json',
  'schema-break',
  'lose-execute-response',
  'lose-send-response',
  'hostile-order',
] as const;
/** One kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** A fault as the control API accepts it. */
export const faultSpecSchema = z
  .object({
    kind: z.enum(FAULT_KINDS),
    /** Number of matching requests affected; unlimited when omitted (then `durationMs` bounds it, or a clear). */
    count: z.number().int().positive().optional(),
    /** Real milliseconds the fault stays active. */
    durationMs: z.number().int().positive().optional(),
    /** Only requests whose path starts with this, e.g. `/ultra/v1/execute`. */
    pathPrefix: z.string().startsWith('/').optional(),
    /**
     * For `lose-execute-response` and `lose-send-response`: only transactions whose fee payer is this address, so
     * that a test can lose one wallet's answer while other wallets trade on the same simulator.
     */
    wallet: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 address').optional(),
    /** For `latency`: added delay in ms. */
    latencyMs: z.number().int().min(0).max(120_000).optional(),
    /** For `server-error`: the status, 500 to 599 (default 503). */
    status: z.number().int().min(500).max(599).optional(),
    /** For `rate-limit`: seconds until a slot frees, sent as x-ratelimit-reset (default 1). */
    retryAfterSeconds: z.number().min(0).max(600).optional(),
  })
  .strict();
/** A fault request. */
export type FaultSpec = z.output<typeof faultSpecSchema>;

interface ActiveFault extends FaultSpec {
  id: number;
  remaining: number;
  untilMs: number;
  hits: number;
}

/** Holds the active faults; middleware and product handlers take them as requests arrive. */
export class FaultController {
  private next = 1;
  private faults: ActiveFault[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Activates a fault; returns its id. */
  add(spec: FaultSpec): number {
    const id = this.next++;
    this.faults.push({
      ...spec,
      id,
      remaining: spec.count ?? Number.POSITIVE_INFINITY,
      untilMs: spec.durationMs !== undefined ? this.now() + spec.durationMs : Number.POSITIVE_INFINITY,
      hits: 0,
    });
    return id;
  }

  /**
   * Consumes one use of the first active fault of a kind matching the path (and, for a fault limited to a wallet,
   * the fee payer of the request's transaction), if any.
   */
  take(kind: FaultKind, path: string, wallet?: string): FaultSpec | undefined {
    this.prune();
    const f = this.faults.find((x) => x.kind === kind && (x.pathPrefix === undefined || path.startsWith(x.pathPrefix)) && (x.wallet === undefined || x.wallet === wallet));
    if (!f) return undefined;
    f.remaining -= 1;
    f.hits += 1;
    return f;
  }

  /** Whether a fault of this kind is active (a cheap check before reading a request body to match it). */
  active(kind: FaultKind): boolean {
    this.prune();
    return this.faults.some((f) => f.kind === kind);
  }

  /** Active faults, with how many requests each has hit. */
  list(): Array<FaultSpec & { id: number; hits: number; remaining: number | null }> {
    this.prune();
    return this.faults.map((f) => ({ ...f, remaining: Number.isFinite(f.remaining) ? f.remaining : null }));
  }

  /** Removes one fault, or all. */
  clear(id?: number): void {
    this.faults = id === undefined ? [] : this.faults.filter((f) => f.id !== id);
  }

  private prune(): void {
    const now = this.now();
    this.faults = this.faults.filter((f) => f.remaining > 0 && f.untilMs > now);
  }
}

/**
 * Breaks a JSON body the way a buggy or hostile upstream might: drops `requestId` if there is one, otherwise puts
 * an object where the first amount-like value (a digit string or a number) was, or else where the first value was.
 * The client must refuse it.
 */
export function breakSchema(value: unknown): unknown {
  if (Array.isArray(value)) {
    const list: unknown[] = value;
    if (list.length === 0) return { unexpected: 'object instead of a list' };
    return [breakSchema(list[0]), ...list.slice(1)];
  }
  if (value && typeof value === 'object') {
    const o = { ...(value as Record<string, unknown>) };
    if ('requestId' in o) {
      delete o.requestId;
      return o;
    }
    for (const [k, v] of Object.entries(o)) {
      if ((typeof v === 'string' && /^\d+$/.test(v)) || typeof v === 'number') {
        o[k] = { broken: true };
        return o;
      }
      if (v && typeof v === 'object') {
        o[k] = breakSchema(v);
        return o;
      }
    }
    // Nothing amount-like: put an object where the first value was (a string field, a label).
    const first = Object.keys(o)[0];
    if (first !== undefined) o[first] = { broken: true };
    return o;
  }
  return { broken: value };
}
