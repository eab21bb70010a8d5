/**
 * The life of an intent (docs/architecture.md § The intent state machine). Every move is one atomic, fenced write in
 * the ledger.
 *
 *   planned → built → guarded → signed → submitted → landed
 *                 ↘ rejected (risk gate or pre-sign guard)      ↘ failed (landed with an error, or refused)
 *   built → landed (the venue says the intent's effect is already there, e.g. a claim paid: nothing is signed)
 *   signed/submitted → planned (a new attempt, only after the blockhash provably expired with the signature absent)
 *   any live state → expired (deadline passed, or attempts used up)
 */
export const INTENT_STATES = ['planned', 'built', 'guarded', 'signed', 'submitted', 'landed', 'failed', 'expired', 'rejected'] as const;
/** A state of the intent state machine. */
export type IntentState = (typeof INTENT_STATES)[number];

/** States an intent never leaves. */
export const TERMINAL_STATES: ReadonlySet<IntentState> = new Set(['landed', 'failed', 'expired', 'rejected']);

/** States in which a signed transaction may exist: never build or sign again from here, only re-submit or reconcile. */
export const SIGNED_STATES: ReadonlySet<IntentState> = new Set(['signed', 'submitted']);

/** Allowed moves, by target state. */
export const ALLOWED_FROM: Readonly<Record<IntentState, readonly IntentState[]>> = {
  planned: ['signed', 'submitted', 'built', 'guarded'],
  built: ['planned', 'built', 'guarded'],
  guarded: ['built'],
  signed: ['guarded'],
  submitted: ['signed', 'submitted'],
  landed: ['signed', 'submitted', 'built'],
  failed: ['planned', 'built', 'guarded', 'signed', 'submitted'],
  expired: ['planned', 'built', 'guarded', 'signed', 'submitted'],
  rejected: ['planned', 'built', 'guarded'],
};

/** Whether a state is terminal. */
export function isTerminal(state: IntentState): boolean {
  return TERMINAL_STATES.has(state);
}
