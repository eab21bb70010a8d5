import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { IntentState } from '../engine/states.js';
import { ruleOfCode } from '../engine/riskRules.js';
import type { IntentError, IntentRecord } from '../store/intents.js';

/** Prometheus text of a registry. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Job states whose depth is reported per queue. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed', 'waiting-children'] as const;

/** How long the request window of the rate-budget use is, ms (the venue's plans are per minute). */
const MINUTE_MS = 60_000;

/**
 * The keeper's metrics: observations the running parts report through hooks (job durations, tick to submit,
 * Jupiter responses and 429s, landings and claims), and gauges the dashboard sets from Redis and BullMQ at each
 * scrape (queue depths, intents by state, refusals by rule, fills, wallet value, rate budget, heartbeats).
 * Labels carry ids and names only: never a key, a token or a URL.
 */
export class KeeperMetrics {
  readonly registry = new Registry();
  readonly queueJobs: Gauge;
  readonly jobDuration: Histogram;
  readonly intents: Gauge;
  readonly intentOutcomes: Counter;
  readonly refusalsToday: Gauge;
  readonly executionRefusals: Counter;
  readonly trades: Counter;
  readonly realizedPnl: Gauge;
  readonly claims: Counter;
  readonly jupiterResponses: Counter;
  readonly rateLimited: Counter;
  readonly rateRequestsLastMinute: Gauge;
  readonly rateLimitPerMinute: Gauge;
  readonly rateUsed: Gauge;
  readonly tickToSubmit: Histogram;
  readonly walletValue: Gauge;
  readonly killSwitch: Gauge;
  readonly heartbeatAge: Gauge;
  /** Request times of the last minute, oldest first (this process's Jupiter requests). */
  private readonly recent: number[] = [];

  constructor() {
    const registers = [this.registry];
    this.queueJobs = new Gauge({ name: 'jupkeeper_queue_jobs', help: 'Jobs in each BullMQ queue by state (queue depth: waiting, active, delayed, ...)', labelNames: ['queue', 'state'], registers });
    this.jobDuration = new Histogram({ name: 'jupkeeper_job_duration_seconds', help: 'How long the jobs this process ran took, by queue and outcome', labelNames: ['queue', 'outcome'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers });
    this.intents = new Gauge({ name: 'jupkeeper_intents', help: 'Intents in the ledger by state', labelNames: ['state'], registers });
    this.intentOutcomes = new Counter({ name: 'jupkeeper_intent_outcomes_total', help: "Intents this process's executor carried to an end state, by kind and state", labelNames: ['kind', 'state'], registers });
    this.refusalsToday = new Gauge({ name: 'jupkeeper_refusals_today', help: 'Intents refused today (UTC) by the risk gate and the pre-sign guard, by rule', labelNames: ['rule'], registers });
    this.executionRefusals = new Counter({ name: 'jupkeeper_execution_refusals_total', help: "Intents this process's executor refused (pre-sign guard, kill switch, venue limits), by rule", labelNames: ['rule'], registers });
    this.trades = new Counter({ name: 'jupkeeper_trades_total', help: 'Trades of every session by strategy instance and kind, as `trades --all` lists them (src/store/trades.ts: a swap landed, an order the venue filled, a claim, a Lend move; a placed order is none), from the ledger in Redis', labelNames: ['strategy', 'kind'], registers });
    this.realizedPnl = new Gauge({ name: 'jupkeeper_realized_pnl_usd', help: 'Realised P&L of every session by strategy instance, USD (average cost)', labelNames: ['strategy'], registers });
    this.claims = new Counter({ name: 'jupkeeper_claims_total', help: "Prediction claims this process's executor carried to an end state, by state", labelNames: ['state'], registers });
    this.jupiterResponses = new Counter({ name: 'jupkeeper_jupiter_responses_total', help: 'Jupiter API responses received by this process, by HTTP status', labelNames: ['status'], registers });
    this.rateLimited = new Counter({ name: 'jupkeeper_jupiter_429_total', help: 'Jupiter API responses with status 429 (rate limited) seen by this process', registers });
    this.rateRequestsLastMinute = new Gauge({ name: 'jupkeeper_rate_budget_requests_last_minute', help: 'Jupiter API requests this process sent in the last 60 s', registers });
    // Labelled by lane (the budget's general one) so that without a client-side limit they are absent, not 0.
    this.rateLimitPerMinute = new Gauge({ name: 'jupkeeper_rate_budget_limit_per_minute', help: "The rate budget's requests per minute (absent without a client-side limit)", labelNames: ['lane'], registers });
    this.rateUsed = new Gauge({ name: 'jupkeeper_rate_budget_used_ratio', help: "Share of the rate budget's per-minute limit this process used in the last 60 s (absent without a limit)", labelNames: ['lane'], registers });
    this.tickToSubmit = new Histogram({ name: 'jupkeeper_tick_to_submit_seconds', help: "From an intent's tick (the evaluation that decided it) to its transaction's submission, this process's executions", buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300], registers });
    this.walletValue = new Gauge({ name: 'jupkeeper_wallet_value_usd', help: "The wallet's value at feed prices, USD (holdings, open orders, deposits, positions)", registers });
    this.killSwitch = new Gauge({ name: 'jupkeeper_kill_switch_engaged', help: '1 while the kill switch is engaged', registers });
    this.heartbeatAge = new Gauge({ name: 'jupkeeper_worker_heartbeat_age_seconds', help: "Age of each worker process's last heartbeat", labelNames: ['worker'], registers });
  }

  /** Hook of KeeperWorkers: one job ran. */
  observeJob(queue: string, ms: number, ok: boolean): void {
    this.jobDuration.observe({ queue, outcome: ok ? 'ok' : 'error' }, ms / 1000);
  }

  /** Hook of the Jupiter transport: one response arrived. */
  observeResponse(status: number, now = Date.now()): void {
    this.jupiterResponses.inc({ status: String(status) });
    if (status === 429) this.rateLimited.inc();
    this.recent.push(now);
    this.trimRecent(now);
  }

  /** Hook of the executor: an intent moved. */
  observeMove(rec: Pick<IntentRecord, 'kind' | 'createdAt'>, to: IntentState, at: number, error?: IntentError | null): void {
    // The intent's createdAt is the time of the evaluation that decided it, at its tick.
    if (to === 'submitted') this.tickToSubmit.observe(Math.max(0, at - rec.createdAt) / 1000);
    if (to === 'landed' || to === 'failed' || to === 'expired' || to === 'rejected') {
      this.intentOutcomes.inc({ kind: rec.kind, state: to });
      if (rec.kind === 'prediction.claim') this.claims.inc({ state: to });
      // A guard refusal names its rules comma-separated: each is counted.
      if (to === 'rejected' && error) for (const rule of (error.rule ?? ruleOfCode(error.code) ?? error.code).split(',')) this.executionRefusals.inc({ rule });
    }
  }

  /** Sets the rate-budget gauges from this process's requests of the last minute and the budget's limit. */
  setRateBudget(limitPerMinute: number | undefined, now = Date.now()): void {
    this.trimRecent(now);
    this.rateRequestsLastMinute.set(this.recent.length);
    this.rateLimitPerMinute.reset();
    this.rateUsed.reset();
    if (limitPerMinute !== undefined && limitPerMinute > 0) {
      this.rateLimitPerMinute.set({ lane: 'all' }, limitPerMinute);
      this.rateUsed.set({ lane: 'all' }, this.recent.length / limitPerMinute);
    }
  }

  /** Replaces a counter's values by totals read elsewhere (Redis keeps them; the counter only reports them). */
  static setTotals(counter: Counter, totals: ReadonlyArray<{ labels: Record<string, string>; n: number }>): void {
    counter.reset();
    for (const { labels, n } of totals) counter.inc(labels, Math.max(0, n));
  }

  private trimRecent(now: number): void {
    let drop = 0;
    while (drop < this.recent.length && this.recent[drop]! <= now - MINUTE_MS) drop += 1;
    if (drop > 0) this.recent.splice(0, drop);
  }
}
