import { describe, expect, it } from 'vitest';
import { KEEPER_INSTANCE } from '../../src/engine/keeperPorts.js';
import { cancelRestingKey, killSwitchVerdictFor, type KillSwitchState } from '../../src/engine/killSwitch.js';
import { intentSchema, type IntentInput } from '../../src/sdk/intents.js';

const ORDER = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';
const request = { requestedAt: 1_750_000_000_000, doneAt: null };
const halted: KillSwitchState = { mode: 'halt', reason: 'operator', at: request.requestedAt, by: 'cli', cancelResting: request };
const intent = (i: IntentInput) => intentSchema.parse(i);

describe('a halt with a cancel-resting request', () => {
  it('lets through the cancels the keeper recorded for that request, of every resting product', () => {
    const key = cancelRestingKey(request);
    for (const i of [{ kind: 'trigger.cancel', order: ORDER, key }, { kind: 'recurring.cancel', order: ORDER, key }, { kind: 'prediction.closeOrder', orderPubkey: ORDER, key }] as const) {
      expect(killSwitchVerdictFor(halted, intent(i), KEEPER_INSTANCE)).toBeUndefined();
    }
  });

  it('refuses everything else: a strategy\'s cancel with the same key, a keeper cancel of another request, any other keeper intent', () => {
    const key = cancelRestingKey(request);
    expect(killSwitchVerdictFor(halted, intent({ kind: 'trigger.cancel', order: ORDER, key }), 'dca')?.code).toBe('KILL_SWITCH');
    expect(killSwitchVerdictFor(halted, intent({ kind: 'trigger.cancel', order: ORDER, key: cancelRestingKey({ requestedAt: 1, doneAt: null }) }), KEEPER_INSTANCE)?.code).toBe('KILL_SWITCH');
    expect(killSwitchVerdictFor(halted, intent({ kind: 'prediction.claim', positionPubkey: ORDER, key }), KEEPER_INSTANCE)?.code).toBe('KILL_SWITCH');
    const noRequest: KillSwitchState = { mode: 'halt', reason: 'operator', at: 1, by: 'cli' };
    expect(killSwitchVerdictFor(noRequest, intent({ kind: 'trigger.cancel', order: ORDER, key }), KEEPER_INSTANCE)?.code).toBe('KILL_SWITCH');
  });
});
