import { knownByMint } from '../lib/mints.js';
import type { Intent } from '../sdk/intents.js';
import { KEEPER_INSTANCE } from './keeperPorts.js';
import { refuse, type RiskRefusal } from './riskRules.js';

/** How the kill switch stops trading: `halt` stops everything new; `reduce-only` lets only position-shrinking intents through. */
export const KILL_SWITCH_MODES = ['halt', 'reduce-only'] as const;
/** A kill-switch mode. */
export type KillSwitchMode = (typeof KILL_SWITCH_MODES)[number];

/** An engaged kill switch. */
export interface KillSwitchState {
  mode: KillSwitchMode;
  reason: string;
  /** Unix ms when it was engaged (0 when unknown). */
  at: number;
  /** Who engaged it: `cli`, `worker`, a rule name. */
  by: string;
  /** Set when the operator also asked for the wallet's resting orders to be cancelled (`--cancel-resting`). */
  cancelResting?: CancelRestingRequest | undefined;
}

/**
 * The kill switch as the keeper jobs read and answer it. Declared here, beside the state it reads, rather than with
 * the other keeper ports: keeperPorts.ts names the keeper's instance, which the verdict below needs, and the two
 * files importing each other were a cycle.
 */
export interface KeeperSwitchPort {
  read(): Promise<KillSwitchState | null>;
  /** Marks the switch's cancel-resting request of `requestedAt` done (nothing if the switch changed since). */
  finishCancelResting(requestedAt: number, at: number): Promise<void>;
}

/** A request, made with the switch, that the keeper cancel every open trigger, recurring and prediction order. */
export interface CancelRestingRequest {
  /** Unix ms of the request; the cancels it asks for carry it in their key. */
  requestedAt: number;
  /** Unix ms when the keeper found no resting order left; null while it works. */
  doneAt: number | null;
}

/**
 * Whether an intent shrinks a position, so that it may pass a `reduce-only` switch: closing and cancelling what is
 * open, withdrawing, claiming, selling, and swaps that sell a token into a stable coin. Everything that adds
 * exposure (buys, new orders, deposits, sends) does not.
 */
export function reducesPosition(intent: Intent): boolean {
  switch (intent.kind) {
    case 'trigger.cancel':
    case 'recurring.cancel':
    case 'lend.withdraw':
    case 'lend.redeem':
    case 'prediction.sell':
    case 'prediction.closePosition':
    case 'prediction.closeOrder':
    case 'prediction.claim':
    case 'send.clawback':
      return true;
    case 'swap':
      return isStable(intent.outputMint) && !isStable(intent.inputMint);
    default:
      return false;
  }
}

/** The verdict of the switch on one intent: undefined to let it through, else the refusal. */
export function killSwitchVerdict(state: KillSwitchState | null, intent: Intent): RiskRefusal | undefined {
  if (!state) return undefined;
  // A switch a loss limit tripped names that limit: the refusal says which rule stopped trading.
  const tripper = state.by.startsWith('risk:') ? state.by.slice('risk:'.length) : undefined;
  if (state.mode === 'halt') return refuse(tripper === 'drawdown' || tripper === 'daily-loss' ? tripper : 'kill-switch', `trading is halted: ${state.reason}`);
  if (!reducesPosition(intent)) return refuse('kill-switch-reduce-only', `the kill switch is reduce-only (${state.reason}); this ${intent.kind} does not shrink a position`);
  return undefined;
}

/** The key of the cancels a cancel-resting request asks for: it names the request, so only its own cancels pass. */
export function cancelRestingKey(request: CancelRestingRequest): string {
  return `cancel-resting-${request.requestedAt}`;
}

/**
 * The verdict of the switch on a recorded intent. Like `killSwitchVerdict`, except that the cancels the switch's own
 * cancel-resting request asked for pass even a halt: recorded by the keeper (never by a strategy, whose instance id
 * cannot be the keeper's), of a cancelling kind, and keyed with the request they serve.
 */
export function killSwitchVerdictFor(state: KillSwitchState | null, intent: Intent, instance: string): ReturnType<typeof killSwitchVerdict> {
  const request = state?.cancelResting;
  const cancels = intent.kind === 'trigger.cancel' || intent.kind === 'recurring.cancel' || intent.kind === 'prediction.closeOrder';
  if (request && cancels && instance === KEEPER_INSTANCE && intent.key === cancelRestingKey(request)) return undefined;
  return killSwitchVerdict(state, intent);
}

function isStable(mint: string): boolean {
  return knownByMint(mint)?.category === 'stable';
}
