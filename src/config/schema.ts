import bs58 from 'bs58';
import { z } from 'zod';
import { ULTRA_ROUTERS } from '../jupiter/ultra/getOrder.js';
import { knownBySymbol } from '../lib/mints.js';
import { API_AREAS, type ApiArea } from '../solana/programs.js';
import { cronProblem, nodeCronProblem } from './cron.js';
import { formatDuration, parseDuration } from './duration.js';
import { loggingSchema, notifySchema } from './notifySchema.js';

// Fix: duration and baseUnits were `z.union([z.string(), z.number()])`, so a wrong type (an object, a list) was
// reported with the first branch's message ("expected string, received object"). One check, one message.
const stringOrNumber = (message: string) => z.custom<string | number>((v) => typeof v === 'string' || typeof v === 'number', { message });

/** A duration in config: "10s", "5m", "1h" or a number of ms, between `min` and `max`. */
export function duration(min: number, max: number) {
  const expected = 'expected a duration such as "500ms", "10s", "5m" or "1h"';
  return stringOrNumber(expected).transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `${expected}, got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    if (ms < min || ms > max) {
      ctx.addIssue({ code: 'custom', message: `must be between ${formatDuration(min)} and ${formatDuration(max)}, got ${formatDuration(ms)}` });
      return z.NEVER;
    }
    return ms;
  });
}

/** A base-units amount in config, written as an integer string (or a safe integer). */
export const baseUnits = stringOrNumber('expected an integer amount in base units, as a string such as "1000000"').transform((v, ctx) => {
  const s = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v;
  if (typeof s !== 'string' || !/^\d+$/.test(s)) {
    ctx.addIssue({ code: 'custom', message: `expected an integer amount in base units (e.g. "1000000"), got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return BigInt(s);
});

const cron = z.string().transform((expr, ctx) => {
  const problem = nodeCronProblem(expr.trim());
  if (problem !== undefined) {
    ctx.addIssue({ code: 'custom', message: `invalid cron expression ${JSON.stringify(expr)}: ${problem}` });
    return z.NEVER;
  }
  return expr.trim();
});

// Fix: an unknown time zone passed validation and only failed when the scheduler started.
const timeZone = z.string().refine(
  (tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'unknown time zone; use an IANA name such as "UTC" or "Europe/Paris"' },
);

/** Most price history samples kept per mint (every evaluation of a mint's watchers shares them; a restart reads them all once). */
export const MAX_HISTORY_SAMPLES = 50_000;

/** When a strategy runs: every fixed interval (ms), or on a cron expression (node-cron syntax, 5 or 6 fields, read alike by BullMQ). */
export type Schedule = { every: number } | { cron: string; tz?: string | undefined };

const SCHEDULE_SHAPE = 'expected an object such as { every: "15s" } or { cron: "*/5 * * * *" }';

// Fix: this was a union of two strict objects, and the loader reported the first branch's problem: a bad cron
// read "every: expected string, received undefined". One object with both fields names the real problem.
/** When a strategy runs: `{ every: "15s" }` or `{ cron: "0 * * * *", tz?: "UTC" }`. */
export const scheduleSchema = z
  .strictObject(
    { every: duration(1_000, 7 * 86_400_000).optional(), cron: cron.optional(), tz: timeZone.optional() },
    { error: (iss) => (iss.code === 'invalid_type' ? SCHEDULE_SHAPE : undefined) },
  )
  .transform((s, ctx): Schedule => {
    if (s.every !== undefined && s.cron !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'set either "every" or "cron", not both' });
      return z.NEVER;
    }
    if (s.every !== undefined) {
      if (s.tz !== undefined) ctx.addIssue({ code: 'custom', path: ['tz'], message: '"tz" only applies to a cron schedule' });
      return { every: s.every };
    }
    if (s.cron !== undefined) {
      // node-cron accepted it (the field's own check); BullMQ, which runs it, must read it alike (src/config/cron.ts).
      const problem = cronProblem(s.cron, s.tz);
      if (problem !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['cron'], message: problem });
        return z.NEVER;
      }
      return s.tz === undefined ? { cron: s.cron } : { cron: s.cron, tz: s.tz };
    }
    ctx.addIssue({ code: 'custom', message: `missing "every" or "cron": ${SCHEDULE_SHAPE}` });
    return z.NEVER;
  });

/** One configured strategy instance. Params are checked against the strategy's own schema by the loader. */
export const strategyInstanceSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, 'lowercase letters, digits and dashes, at most 48 characters'),
  strategy: z.string().min(1),
  enabled: z.boolean().default(true),
  schedule: scheduleSchema,
  params: z.record(z.string(), z.unknown()).default({}),
  /** Decide also on every new price snapshot (default: what the strategy says). */
  reactive: z.boolean().optional(),
  /** USD this instance may trade per UTC day (its share of risk.maxDailyNotionalUsd); unset: no budget of its own. */
  dailyBudgetUsd: z.number().positive().max(100_000_000).optional(),
});

const url = z.string().url();
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A program id: base58 of 32 bytes. */
const programId = z.string().refine(
  (v) => {
    if (!BASE58_ADDRESS.test(v)) return false;
    try {
      return bs58.decode(v).length === 32;
    } catch {
      return false;
    }
  },
  { message: 'expected a program id (base58 of 32 bytes)' },
);
/** Programs an operator has reviewed and allows at the top level of one API area's transactions, each once. */
const programList = z
  .array(programId)
  .max(16)
  .refine((ids) => new Set(ids).size === ids.length, { message: 'lists a program more than once' });

/**
 * Top-level programs allowed per API area besides the area's own (src/solana/programs.ts), reviewed by the operator:
 * a venue route that calls its own program at the top level (Ultra's DFlow and OKX routers) is refused unless listed.
 */
export const allowProgramsSchema = z.strictObject(Object.fromEntries(API_AREAS.map((a) => [a, programList.optional()])) as Record<ApiArea, z.ZodOptional<typeof programList>>);

/** Ultra orders: which routers the venue may not use, and how long an order may stay landable. */
export const ultraSchema = z.strictObject({
  /** Routers Ultra may not route through (sent as `excludeRouters`). Excluding all four leaves no route. */
  excludeRouters: z
    .array(z.enum(ULTRA_ROUTERS))
    .max(ULTRA_ROUTERS.length)
    .refine((r) => new Set(r).size === r.length, { message: 'lists a router more than once' })
    .refine((r) => new Set(r).size < ULTRA_ROUTERS.length, { message: `excludes every router (${ULTRA_ROUTERS.join(', ')}): Ultra would have no route` })
    .default([]),
  /**
   * Longest an Ultra order may stay landable, from when the keeper asked for it: an older one is built again instead
   * of signed, and a JupiterZ quote whose fill (signed by the market maker after the wallet) expires later is refused.
   * JupiterZ fills expire 55 s after the quote; below that, exclude `jupiterz`.
   */
  maxQuoteAge: duration(5_000, 120_000).default(60_000),
});

/** The venue: the in-process simulator (paper), an external simulator, or the live Jupiter API. */
export const venueSchema = z.strictObject({
  kind: z.enum(['simulator', 'live']),
  /** Jupiter API origin; for `simulator` an already running `jup-keeper sim` (otherwise one starts in-process). */
  url: url.optional(),
  /** Solana RPC; defaults to `${url}/rpc` for a simulator and SOLANA_RPC_URL for live. */
  rpcUrl: url.optional(),
  /**
   * Addresses that may co-sign the venue's transactions besides the wallet (a market maker's vault). For the
   * simulator venue the keeper adds the simulator's declared vault at start. Any other required signer is refused.
   */
  coSigners: z.array(z.string().regex(BASE58_ADDRESS, 'expected a base58 address')).max(16).default([]),
  /**
   * Programs you reviewed and allow at the top level of an API area's transactions, e.g. `{ ultra: [<router id>] }`
   * for Ultra's DFlow or OKX routes. Any other program outside the area's own is refused.
   */
  allowPrograms: allowProgramsSchema.default({}),
  simulator: z.strictObject({
    seed: z.number().int().min(0).default(1),
    clockSpeed: z.number().min(0).max(1_000).default(1),
    port: z.number().int().min(0).max(65_535).default(0),
  }).default({ seed: 1, clockSpeed: 1, port: 0 }),
});

/** A list of tokens by symbol (SOL, USDC, ...) or mint address, resolved to mint addresses. */
const mintList = z
  .array(
    z.string().transform((v, ctx) => {
      const known = knownBySymbol(v)?.mint;
      if (known) return known;
      if (BASE58_ADDRESS.test(v)) return v;
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a known symbol (SOL, USDC, ...) or a mint address` });
      return z.NEVER;
    }),
  )
  .max(1_000);

/** Limits the risk gate enforces before any intent is executed. */
export const riskSchema = z.strictObject({
  /** Largest USD value of one intent. */
  maxNotionalUsdPerIntent: z.number().positive().max(10_000_000).default(1_000),
  /** USD value all strategies together may trade per UTC day. */
  maxDailyNotionalUsd: z.number().positive().max(100_000_000).default(10_000),
  /** Intents one evaluation may produce; more is a strategy bug. */
  maxIntentsPerEvaluation: z.number().int().min(1).max(100).default(10),
  /** Largest slippage any swap may use. */
  maxSlippageBps: z.number().int().min(1).max(5_000).default(300),
  /** SOL the wallet always keeps for fees, in lamports. */
  minSolReserveLamports: baseUnits.default(20_000_000n),
  /** Refuse tokens with shield warnings of these severities. */
  refuseShieldSeverities: z.array(z.enum(['info', 'warning', 'critical'])).default(['critical']),
  /**
   * Most priority fee (compute-unit price times limit, plus tips to known tip accounts) one transaction may pay, in
   * lamports. The pre-sign guard refuses a transaction that asks for more, whatever the venue says it costs.
   */
  maxPriorityFeeLamports: baseUnits.default(1_000_000n),
  /** Token-2022 mints with a transfer hook or a permanent delegate that may still be traded (refused otherwise). */
  allowToken2022Mints: z.array(z.string().regex(BASE58_ADDRESS, 'expected a mint address')).max(100).default([]),
  /** Largest USD value the wallet may hold of any one token it buys (stable coins excepted); unset: no cap. */
  maxPositionUsdPerToken: z.number().positive().max(100_000_000).optional(),
  /** Largest USD at stake (cost of contracts held plus open buys) in the markets of one prediction event. */
  maxEventExposureUsd: z.number().positive().max(100_000_000).optional(),
  /** No new prediction entries (buys) this close to a market's close. */
  predictionEntryCutoff: duration(0, 7 * 86_400_000).default(300_000),
  /** Only these tokens may be bought or deposited (symbols or mints); empty: any. */
  allowMints: mintList.default([]),
  /** These tokens are never bought or deposited (symbols or mints); selling them out stays allowed. */
  denyMints: mintList.default([]),
  /** SOL the wallet may spend on transaction fees (signature and priority) per UTC day, in lamports; unset: no cap. */
  maxDailyFeeLamports: baseUnits.optional(),
  /** Fall of the wallet's value (at feed prices) since the first reading of the UTC day that halts trading, in USD. */
  maxDailyLossUsd: z.number().positive().max(100_000_000).optional(),
  /** Fall of the wallet's value (at feed prices) from its peak that halts trading, in percent. */
  maxDrawdownPct: z.number().positive().max(100).optional(),
});

/** The keeper's periodic jobs besides the intent reconciler (src/keeper): cadences, and the age of a stale order. */
export const keeperSchema = z.strictObject({
  /** How often settled winning prediction positions are claimed. */
  claimEvery: duration(1_000, 86_400_000).default(60_000),
  /** How often the ledger is reconciled with the venue's orders: an order filled or cancelled behind the bot's back shows within one run. */
  reconcileVenueEvery: duration(1_000, 3_600_000).default(30_000),
  /** How often open prediction orders are checked against `staleOrderAge`. */
  staleOrderEvery: duration(1_000, 3_600_000).default(60_000),
  /** A prediction order still open this long after it was placed is closed, and what its escrow holds refunded. */
  staleOrderAge: duration(1_000, 30 * 86_400_000).default(900_000),
  /** How often escrows of ended orders and unclaimed winnings are reported (the sweep moves nothing). */
  sweepEvery: duration(1_000, 86_400_000).default(600_000),
  /** How often the kill switch is read for a cancel-resting request (`kill-switch on --cancel-resting`). */
  cancelRestingEvery: duration(1_000, 600_000).default(5_000),
});

/** The dashboard's section of the config. */
export const dashboardSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Address to listen on (default 127.0.0.1; any other than loopback needs DASHBOARD_TOKEN). */
  host: z.string().min(1).max(255).optional(),
  /** Port (default 8787; 0: any free port, logged with the URL). */
  port: z.number().int().min(0).max(65_535).optional(),
  /** How often the wallet's value is recorded for the dashboard's chart. */
  chartEvery: duration(1_000, 3_600_000).default(30_000),
  /** A worker heartbeat older than this makes /healthz unhealthy (workers beat every 5 s). */
  heartbeatStale: duration(10_000, 600_000).default(30_000),
});

/** The configuration file. Secrets are never in it: they come from the environment. */
export const configSchema = z.strictObject({
  venue: venueSchema,
  api: z.strictObject({
    tier: z.enum(['keyless', 'free', 'developer', 'launch', 'pro', 'ultra', 'custom', 'off']).optional(),
    requestsPerMinute: z.number().int().positive().max(1_000_000).optional(),
    timeoutMs: z.number().int().min(100).max(120_000).default(15_000),
    /**
     * The only origin JUPITER_API_KEY is sent to (default: JUPITER_BASE_URL if set, else https://api.jup.ag). A
     * venue at any other address, the simulator included, gets no key unless this names it.
     */
    keyedBaseUrl: url.optional(),
    /** Ultra orders: `excludeRouters` and `maxQuoteAge`. */
    ultra: ultraSchema.default({ excludeRouters: [], maxQuoteAge: 60_000 }),
  }).default({ timeoutMs: 15_000, ultra: { excludeRouters: [], maxQuoteAge: 60_000 } }),
  wallet: z.strictObject({
    /** Path of a Solana CLI keypair file (JSON array of 64 bytes); JUPKEEPER_KEYPAIR_PATH overrides it. */
    keypairPath: z.string().min(1).optional(),
    /** Simulator only: create a fresh wallet at start instead of loading one. */
    paper: z.boolean().default(false),
    /** Simulator only: what the simulator airdrops to the wallet at start, by symbol or mint, in base units. */
    // Fix: any key was accepted, so a misspelt symbol (`USCD`) passed and failed only at the airdrop.
    fund: z.record(z.string().refine((k) => knownBySymbol(k) !== undefined || BASE58_ADDRESS.test(k), { message: 'not a known symbol (SOL, USDC, ...) or a mint address' }), baseUnits).default({}),
  }),
  redis: z.strictObject({
    url: z.string().regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL').optional(),
    /**
     * Key prefix of the deployment. On Redis Cluster use a hash tag, e.g. `{jk}`: every key (queues, ledger) then
     * lands in one slot, which the multi-key scripts of BullMQ and the ledger need.
     */
    prefix: z
      .string()
      .regex(/^(?=.{1,34}$)(\{[A-Za-z0-9_-]{1,32}\})?[A-Za-z0-9_-]*$/, 'prefix: 1 to 32 letters, digits, _ or -, optionally in a Redis Cluster hash tag such as {jk}')
      .default('jk'),
  }).default({ prefix: 'jk' }),
  risk: riskSchema.default(riskSchema.parse({})),
  execution: z.strictObject({
    concurrency: z.number().int().min(1).max(64).default(4),
    /** Attempts per intent (a new attempt only after the previous one provably expired). */
    maxAttempts: z.number().int().min(1).max(10).default(3),
    /** How long an intent may keep trying before it is given up. */
    deadline: duration(10_000, 3_600_000).default(300_000),
    /**
     * Lock of an execute job. A worker that dies holding it is noticed once it lapses (plus half of it, the stall
     * check); the job then fails and the reconciler takes the intent over. Shorter notices crashes sooner but a
     * worker whose event loop stalls longer than this loses its job.
     */
    jobLock: duration(2_000, 600_000).default(30_000),
    /** How often the reconciler looks for live intents whose execution stopped. */
    reconcileEvery: duration(1_000, 600_000).default(15_000),
    /** Strategy instances of one cadence evaluated together by one job per tick (a shard). */
    shardSize: z.number().int().min(1).max(100_000).default(500),
    /**
     * Intents planned but not yet taken up by an execution, past which evaluation waits (backpressure): a venue or a
     * rate budget slower than the strategies must not pile up intents that would go stale in the queue.
     */
    maxBacklog: z.number().int().min(1).max(1_000_000).default(100),
  }).default({ concurrency: 4, maxAttempts: 3, deadline: 300_000, jobLock: 30_000, reconcileEvery: 15_000, shardSize: 500, maxBacklog: 100 }),
  feeds: z.strictObject({
    prices: duration(1_000, 3_600_000).default(10_000),
    wallet: duration(1_000, 3_600_000).default(15_000),
    prediction: duration(5_000, 3_600_000).default(30_000),
    /** Oldest market snapshot (prices) a decision or the pre-sign guard may use. */
    maxPriceAge: duration(1_000, 3_600_000).default(60_000),
    /** Oldest wallet snapshot a decision may use. */
    maxWalletAge: duration(1_000, 3_600_000).default(30_000),
    /** How long the price history strategies read (ctx.priceHistory) is kept, in Redis, shared by every instance. */
    priceHistory: duration(60_000, 30 * 86_400_000).default(86_400_000),
    /** At most one price history sample per this period (and per price feed run: a faster resolution samples every run). */
    priceHistoryResolution: duration(1_000, 3_600_000).default(60_000),
  })
    .refine((f) => f.priceHistory / f.priceHistoryResolution <= MAX_HISTORY_SAMPLES, {
      message: `feeds.priceHistory over feeds.priceHistoryResolution is more than ${MAX_HISTORY_SAMPLES.toLocaleString('en-US')} samples per mint; keep less or sample less often`,
      path: ['priceHistory'],
    })
    .default({ prices: 10_000, wallet: 15_000, prediction: 30_000, maxPriceAge: 60_000, maxWalletAge: 30_000, priceHistory: 86_400_000, priceHistoryResolution: 60_000 }),
  keeper: keeperSchema.default(keeperSchema.parse({})),
  /**
   * The dashboard `jup-keeper run` serves (Bull Board read-only, status page, /metrics, /healthz, /readyz). On any
   * address but loopback it needs DASHBOARD_TOKEN. --dashboard-host and --dashboard-port override host and port.
   */
  dashboard: dashboardSchema.default(dashboardSchema.parse({})),
  /** Limits on strategies of the user's own (`strategy: ./path.ts`), which decide in worker threads. */
  isolation: z.strictObject({
    /** Longest one decide() call may run; past it the thread is stopped and the instance suspended. */
    decisionTimeout: duration(10, 60_000).default(1_000),
    /** Heap of each strategy module's thread, MB; past it the thread is stopped and the instance suspended. */
    memoryLimitMb: z.number().int().min(16).max(16_384).default(256),
    /** Longest a strategy module may take to load. */
    loadTimeout: duration(1_000, 300_000).default(15_000),
    /** How long an instance whose decision was stopped sits out, the first time (doubled at each repeat, to 1 h). */
    suspend: duration(1_000, 3_600_000).default(60_000),
  }).default({ decisionTimeout: 1_000, memoryLimitMb: 256, loadTimeout: 15_000, suspend: 60_000 }),
  logging: loggingSchema.default({ level: 'info', format: 'auto', summaryEvery: 300_000 }),
  /** Notifications of fills, claims, refusals, kill-switch trips, errors and a daily summary (src/notify). */
  notify: notifySchema.optional(),
  strategies: z.array(strategyInstanceSchema).min(1, 'at least one strategy instance is required'),
});

/** A validated configuration (before strategy params are parsed). */
export type RawKeeperConfig = z.output<typeof configSchema>;
