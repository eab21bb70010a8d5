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
  /** A slot no later than the first send (read before signing): the transaction cannot have landed before it. */
  minSlot: number;
  /** Sends the same signed bytes again (idempotent); called every `resendEveryMs` while unconfirmed. */
  resend?: () => Promise<void>;
  resendEveryMs?: number;
  pollMs?: number;
  signal?: AbortSignal | undefined;
  logger: Logger;
}

/**
 * Waits for a signature by polling its status (with history search), re-sending the same bytes now and then, until
 * it is confirmed, or until expiry is proven: only then is it `expired`, and only then may the intent be rebuilt.
 */
export async function confirmSignature(rpc: SolanaRpc, o: ConfirmOptions): Promise<Confirmation> {
  const pollMs = o.pollMs ?? 400;
  const resendEvery = o.resendEveryMs ?? 2_000;
  let lastSend = Date.now();
  for (;;) {
    // Polled with every other signature in flight in this process (one getSignatureStatuses for all of them).
    const status = await rpc.sharedStatus(o.signature).catch(() => null);
    const settled = settledOf(status?.value ?? null);
    if (settled) return settled;
    const proof = await proveExpired(rpc, o).catch((err: unknown) => {
      o.logger.debug({ err: err instanceof Error ? err.message : String(err), signature: o.signature }, 'expiry check failed; still waiting');
      return { expired: false as const };
    });
    if ('landed' in proof) return proof.landed;
    if (proof.expired) return { kind: 'expired' };
    if (o.resend && Date.now() - lastSend >= resendEvery) {
      await o.resend().catch((err: unknown) => o.logger.debug({ err, signature: o.signature }, 're-send failed; still waiting for the status'));
      // Counted from when the re-send finished: one that waited on the rate budget does not shorten the next gap.
      lastSend = Date.now();
    }
    await sleep(pollMs, o.signal);
  }
}

/**
 * The proof that a signature will never land, read so that a lagging or forgetful node cannot fake it: the
 * blockhash is no longer valid on a node at least at `minSlot`; the block height there is past lastValidBlockHeight;
 * the signature's status, read afterwards from a node at least that fresh (its context slot checked), is absent;
 * and that node keeps history back to `minSlot`, so "absent" is not "forgotten". Anything short of that is no
 * proof, and the confirmation keeps waiting.
 */
async function proveExpired(rpc: SolanaRpc, o: ConfirmOptions): Promise<{ expired: boolean } | { landed: Confirmation }> {
  const validity = await rpc.blockhashValidity(o.blockhash, o.minSlot);
  if (validity.valid) return { expired: false };
  const height = await rpc.blockHeight(validity.slot);
  if (height <= o.lastValidBlockHeight) return { expired: false };
  // Read the status after the height: a landing between the two reads cannot be missed.
  const status = await rpc.status(o.signature);
  if (status.slot < validity.slot) return { expired: false };
  const settled = settledOf(status.value);
  if (settled) return { landed: settled };
  if (status.value !== null) return { expired: false }; // processed but not yet confirmed: wait for it
  const firstKept = await rpc.minimumLedgerSlot();
  if (firstKept > o.minSlot) {
    o.logger.warn({ signature: o.signature, firstKept, minSlot: o.minSlot }, 'the RPC node keeps no history back to the send: its "absent" proves nothing; waiting');
    return { expired: false };
  }
  return { expired: true };
}

function settledOf(status: TxStatus | null): Confirmation | undefined {
  if (!status) return undefined;
  // A processed status can still be rolled back with its fork; wait for confirmed.
  if (status.confirmationStatus !== 'confirmed' && status.confirmationStatus !== 'finalized') return undefined;
  return status.err ? { kind: 'failed', status } : { kind: 'landed', status };
}
