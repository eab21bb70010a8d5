import type { Logger } from '../lib/logger.js';
import { sleep } from '../lib/time.js';
import type { SolanaRpc, TxStatus } from '../solana/rpc.js';

/** How a signature ended. `expired` only when the blockhash provably expired and the signature is absent. */
export type Confirmation = { kind: 'landed'; status: TxStatus } | { kind: 'failed'; status: TxStatus } | { kind: 'expired' };

/** Options of a confirmation. */
export interface ConfirmOptions {
  signature: string;
  blockhash: string;
  lastValidBlockHeight: bigint;
  /** Sends the same signed bytes again (idempotent); called every `resendEveryMs` while unconfirmed. */
  resend?: () => Promise<void>;
  resendEveryMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
  logger: Logger;
}

/**
 * Waits for a signature by polling its status (with history search), re-sending the same bytes now and then, until
 * it is confirmed, or until the block height has passed lastValidBlockHeight, the blockhash is no longer valid and
 * the signature is still absent: only then is it `expired`, and only then may the intent be rebuilt.
 */
export async function confirmSignature(rpc: SolanaRpc, o: ConfirmOptions): Promise<Confirmation> {
  const pollMs = o.pollMs ?? 400;
  const resendEvery = o.resendEveryMs ?? 2_000;
  let lastSend = Date.now();
  for (;;) {
    const status = await rpc.status(o.signature);
    const settled = settledOf(status);
    if (settled) return settled;
    const height = await rpc.blockHeight();
    if (height > o.lastValidBlockHeight) {
      // Read the status after the height: a landing between the two reads cannot be missed.
      const again = settledOf(await rpc.status(o.signature));
      if (again) return again;
      if (!(await rpc.isBlockhashValid(o.blockhash))) {
        const last = await rpc.status(o.signature);
        return settledOf(last) ?? { kind: 'expired' };
      }
    }
    if (o.resend && Date.now() - lastSend >= resendEvery) {
      await o.resend().catch((err: unknown) => o.logger.debug({ err, signature: o.signature }, 're-send failed; still waiting for the status'));
      // Counted from when the re-send finished: one that waited on the rate budget does not shorten the next gap.
      lastSend = Date.now();
    }
    await sleep(pollMs, o.signal);
  }
}

function settledOf(status: TxStatus | null): Confirmation | undefined {
  if (!status) return undefined;
  // A processed status can still be rolled back with its fork; wait for confirmed.
  if (status.confirmationStatus !== 'confirmed' && status.confirmationStatus !== 'finalized') return undefined;
  return status.err ? { kind: 'failed', status } : { kind: 'landed', status };
}
