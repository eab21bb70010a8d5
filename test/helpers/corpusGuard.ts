// The real guard on a recorded transaction: the policy the keeper derives from the fixture's intent (guardPolicyFor,
// with the fixture's configured limits, its prices and the venue's declared co-signers), and a recorded node
// (recordedRpc.ts) answering its reads and simulation.
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { guardTransaction, type GuardReport } from '../../src/solana/guard.js';
import { policyContext, type Recorded } from './corpus.js';
import { startRecordedRpc } from './recordedRpc.js';

/** The guard's report on a recorded transaction, for the fixture's intent (or `intent` instead). */
export async function guardRecorded(r: Recorded, intent = r.intent): Promise<GuardReport> {
  const node = await startRecordedRpc(r);
  try {
    const built = { engineSigners: r.fixture.engineSigners, burn: r.fixture.burn && { mint: r.fixture.burn.mint, max: BigInt(r.fixture.burn.max) } };
    const policy = await guardPolicyFor(intent, built, policyContext(r));
    return await guardTransaction(r.tx, policy, node.rpc);
  } finally {
    await node.close();
  }
}

/** The rules a report names, each once, sorted. */
export function rulesOf(report: GuardReport): string[] {
  return [...new Set(report.violations.map((v) => v.rule))].sort();
}
