import { describe, expect, it } from 'vitest';
import { KeeperMetrics } from '../../src/dashboard/metrics.js';
import { parsePrometheus } from './prometheus.js';

describe('the keeper metrics fed by hooks', () => {
  it('counts executions, refusals by rule, claims, responses and 429s, and times tick to submit', async () => {
    const m = new KeeperMetrics();
    const now = 1_000_000;
    m.observeMove({ kind: 'swap', createdAt: now - 250 }, 'submitted', now);
    m.observeMove({ kind: 'swap', createdAt: now - 250 }, 'landed', now + 500);
    m.observeMove({ kind: 'prediction.claim', createdAt: now }, 'landed', now);
    m.observeMove({ kind: 'swap', createdAt: now }, 'rejected', now, { code: 'GUARD_REFUSED', message: 'no', rule: 'fee-payer,priority-fee' });
    m.observeMove({ kind: 'swap', createdAt: now }, 'rejected', now, { code: 'RISK_KILL_SWITCH', message: 'halted', rule: 'kill-switch' });
    m.observeJob('execute', 120, true);
    m.observeResponse(200, now);
    m.observeResponse(429, now);
    m.setRateBudget(undefined, now + 1);
    let f = parsePrometheus(await m.registry.metrics());
    const value = (name: string, labels: Record<string, string> = {}) => f.get(name.replace(/_(count|sum|bucket)$/, ''))?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    expect(value('jupkeeper_tick_to_submit_seconds_count')).toBe(1);
    expect(value('jupkeeper_tick_to_submit_seconds_sum')).toBeCloseTo(0.25);
    expect(value('jupkeeper_intent_outcomes_total', { kind: 'swap', state: 'landed' })).toBe(1);
    expect(value('jupkeeper_claims_total', { state: 'landed' })).toBe(1);
    expect(value('jupkeeper_execution_refusals_total', { rule: 'fee-payer' })).toBe(1);
    expect(value('jupkeeper_execution_refusals_total', { rule: 'priority-fee' })).toBe(1);
    expect(value('jupkeeper_execution_refusals_total', { rule: 'kill-switch' })).toBe(1);
    expect(value('jupkeeper_job_duration_seconds_count', { queue: 'execute', outcome: 'ok' })).toBe(1);
    expect(value('jupkeeper_jupiter_429_total')).toBe(1);
    expect(value('jupkeeper_jupiter_responses_total', { status: '429' })).toBe(1);
    expect(value('jupkeeper_rate_budget_requests_last_minute')).toBe(2);
    // Without a client-side limit there is no limit to report, rather than a limit of 0.
    expect(f.get('jupkeeper_rate_budget_limit_per_minute')?.samples).toEqual([]);
    m.setRateBudget(600, now + 61_000);
    f = parsePrometheus(await m.registry.metrics());
    expect(value('jupkeeper_rate_budget_limit_per_minute', { lane: 'all' })).toBe(600);
    expect(value('jupkeeper_rate_budget_requests_last_minute')).toBe(0);
  });
});
