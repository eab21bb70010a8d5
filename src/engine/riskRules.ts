/**
 * The rules of the risk gate, by name. A refused intent is recorded `rejected` with the rule's code and name (shown
 * by `jup-keeper intents` and `status`), logged, and counted per rule.
 */
export const RISK_RULES = {
  'kill-switch': 'KILL_SWITCH',
  'kill-switch-reduce-only': 'KILL_SWITCH_REDUCE_ONLY',
  'price-unknown': 'RISK_NO_PRICE',
  balance: 'RISK_BALANCE',
  'max-notional-per-order': 'RISK_NOTIONAL',
  'max-daily-notional': 'RISK_DAILY',
  'strategy-budget': 'RISK_BUDGET',
  'max-position-per-token': 'RISK_POSITION',
  'max-event-exposure': 'RISK_EVENT_EXPOSURE',
  'prediction-close-cutoff': 'RISK_CLOSE_CUTOFF',
  'max-slippage': 'RISK_SLIPPAGE',
  'mint-allowlist': 'RISK_ALLOWLIST',
  'mint-denylist': 'RISK_DENYLIST',
  shield: 'RISK_SHIELD',
  'min-sol-reserve': 'RISK_SOL_RESERVE',
  'daily-fee-budget': 'RISK_FEE_BUDGET',
  'daily-loss': 'RISK_DAILY_LOSS',
  drawdown: 'RISK_DRAWDOWN',
} as const;

/** The name of a rule of the risk gate. */
export type RiskRule = keyof typeof RISK_RULES;

/** A refusal of the gate: the rule's code (stable, for tools), its name and why. */
export interface RiskRefusal {
  ok: false;
  code: string;
  rule: RiskRule;
  message: string;
}

/** A refusal by a rule. */
export function refuse(rule: RiskRule, message: string): RiskRefusal {
  return { ok: false, code: RISK_RULES[rule], rule, message };
}

/** The rule a rejection code names, if it is the gate's. */
export function ruleOfCode(code: string): RiskRule | undefined {
  return (Object.keys(RISK_RULES) as RiskRule[]).find((r) => RISK_RULES[r] === code);
}
