import { VersionedTransaction } from '@solana/web3.js';
import type { JupiterClient } from '../jupiter/client.js';
import { ExecuteError } from '../jupiter/errors.js';
import { KeeperError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { IntentState } from '../engine/states.js';
import type { SolanaRpc } from '../solana/rpc.js';
import type { IntentPatch, IntentRecord, IntentStore, MoveOptions } from '../store/intents.js';
import { confirmSignature } from './confirm.js';
import { sleep } from '../lib/time.js';
import { faultPoint } from './faultPoints.js';
import { awaitsFeePayer, findInHistory, firstSigner, isFeePayerSignature, provenAbsent } from './sponsored.js';
import type { SubmitRoute } from './types.js';

/** A fenced move of one intent by its current owner (the executor's). */
export type Mover = (rec: IntentRecord, to: IntentState, patch: IntentPatch, options?: MoveOptions) => Promise<void>;

/** How one attempt ended: a terminal state, or its signature provably expired unlanded (a new attempt may follow). */
export type AttemptEnd = { done: IntentState } | { expired: true };

/** What submitting needs. */
export interface SubmitDeps {
  jup: JupiterClient;
  rpc: SolanaRpc;
  store: IntentStore;
  move: Mover;
  log: Logger;
  signal?: AbortSignal | undefined;
}

/**
 * Sends a signed intent's bytes by its route and confirms them by signature. The intent becomes `failed` only when
 * the chain says so (the transaction landed with an error); a send the node refused in preflight proves nothing,
 * because an earlier copy of the same bytes may still land: the confirmation goes on, and only a proven expiry
 * with the signature absent ends the attempt. `signedTx`, when given, is the record's signedTx already decoded.
 */
export async function submitAndConfirm(rec: IntentRecord, d: SubmitDeps, signedTx?: VersionedTransaction): Promise<AttemptEnd> {
  if (!rec.signedTx || rec.lastValidBlockHeight === null) {
    throw new KeeperError('INTENT_CORRUPT', 'halt', `intent ${rec.id} is ${rec.state} without its signed transaction`);
  }
  // The transaction just signed in this process is the one whose bytes are the record's: not decoded again.
  const tx = signedTx ?? VersionedTransaction.deserialize(Buffer.from(rec.signedTx, 'base64'));
  // A sponsored transaction's id comes from its fee payer at the venue: the record has none until it is found.
  const sponsored = awaitsFeePayer(tx);
  const route = parseRoute(rec.route);
  if (sponsored) {
    await d.move(rec, 'submitted', {});
    return submitSponsored(rec, d, tx, route);
  }
  const signature = rec.signature;
  if (!signature) throw new KeeperError('INTENT_CORRUPT', 'halt', `intent ${rec.id} is ${rec.state} without its signature`);
  await d.move(rec, 'submitted', {});
  let executed: Record<string, unknown> | undefined;
  const send = async (): Promise<void> => {
    executed = (await submitOnce(d, route, rec.signedTx!, tx)) ?? executed;
  };
  try {
    await send();
  } catch (err) {
    d.log.warn({ err: summarize(err) }, 'submit did not confirm; checking the chain by signature');
  }
  await faultPoint('after-submit');
  const c = await confirmSignature(d.rpc, {
    signature,
    blockhash: tx.message.recentBlockhash,
    lastValidBlockHeight: rec.lastValidBlockHeight,
    minSlot: minSlotOf(rec.route),
    resend: send,
    signal: d.signal,
    logger: d.log,
  });
  if (c.kind === 'expired') return { expired: true };
  return settle(rec, d, c, executed);
}

/**
 * A sponsored transaction (Ultra's RFQ and gasless routes): its fee payer signs at the venue, after the wallet, so its
 * id is found rather than known. The venue's answer names it, but counts only if it verifies as the fee payer's
 * signature over this message; otherwise it is looked for in the wallet's history. Once known it is recorded and
 * confirmed by it like any other. The attempt ends expired only when the blockhash provably expired and the
 * wallet's history holds no signature of that fee payer over this message.
 */
async function submitSponsored(rec: IntentRecord, d: SubmitDeps, tx: VersionedTransaction, route: SubmitRoute): Promise<AttemptEnd> {
  const wallet = firstSigner(tx);
  if (!wallet) throw new KeeperError('INTENT_CORRUPT', 'halt', `intent ${rec.id} is ${rec.state} with no signature in its signed transaction`);
  const message = tx.message.serialize();
  const minSlot = minSlotOf(rec.route);
  // Found by an earlier run of this attempt (and verified then): confirmed by it at once.
  let id: string | undefined = isFeePayerSignature(tx, rec.signature ?? undefined, message) ? rec.signature! : undefined;
  let executed: Record<string, unknown> | undefined;
  const learn = (signature: string | undefined): void => {
    if (id === undefined && isFeePayerSignature(tx, signature, message)) id = signature;
  };
  const send = async (): Promise<void> => {
    try {
      const r = await submitOnce(d, route, rec.signedTx!, tx);
      executed = r ?? executed;
      learn(typeof r?.signature === 'string' ? r.signature : undefined);
    } catch (err) {
      if (err instanceof ExecuteError) learn(err.signature);
      throw err;
    }
  };
  const trySend = () => send().catch((err: unknown) => d.log.debug({ err: summarize(err) }, 'submit did not confirm; looking for the transaction in the wallet\'s history'));
  await trySend();
  await faultPoint('after-submit');
  let lastSend = Date.now();
  for (;;) {
    if (id === undefined) {
      const found = await findInHistory(d.rpc, { wallet, tx, minSlot }).catch(() => undefined);
      if (found?.signature) id = found.signature;
    }
    if (id === undefined) {
      const proof = await provenAbsent(d.rpc, { wallet, tx, minSlot, lastValidBlockHeight: rec.lastValidBlockHeight! }).catch(() => ({ absent: false as const }));
      if ('found' in proof && proof.found) id = proof.found;
      else if (proof.absent) return { expired: true };
    }
    if (id !== undefined) {
      const known = id;
      // Recorded before it is confirmed: the wallet feed asks the chain about it from now on, and a restart resumes by it.
      const signatures = rec.signatures.includes(known) ? rec.signatures : [...rec.signatures, known];
      if (rec.signature !== known) await d.move(rec, 'submitted', { signature: known, signatures });
      const named: IntentRecord = { ...rec, signature: known, signatures, state: 'submitted' };
      const c = await confirmSignature(d.rpc, { signature: known, blockhash: tx.message.recentBlockhash, lastValidBlockHeight: rec.lastValidBlockHeight!, minSlot, resend: send, signal: d.signal, logger: d.log });
      if (c.kind !== 'expired') return settle(named, d, c, executed);
      // That signature provably never landed: only the wallet's history can say the message did not land either.
      const proof = await provenAbsent(d.rpc, { wallet, tx, minSlot, lastValidBlockHeight: rec.lastValidBlockHeight! }).catch(() => ({ absent: false as const }));
      if (proof.absent) return { expired: true };
      id = 'found' in proof && proof.found !== known ? proof.found : undefined;
      if (id !== undefined) continue;
    }
    if (Date.now() - lastSend >= RESEND_EVERY_MS) {
      await trySend();
      lastSend = Date.now();
    }
    await sleep(POLL_MS, d.signal);
  }
}

/**
 * Records how a confirmed transaction ended. Nothing but this owner's fenced moves changed the record since `rec`
 * (read after the claim, or as the moves of this attempt left it): its quote is the stored one.
 */
async function settle(rec: IntentRecord, d: SubmitDeps, c: Exclude<Awaited<ReturnType<typeof confirmSignature>>, { kind: 'expired' }>, executed: Record<string, unknown> | undefined): Promise<AttemptEnd> {
  if (c.kind === 'landed') {
    await d.move(rec, 'landed', { result: { slot: c.status.slot, ...(executed ?? {}), expected: rec.quote?.expectedChanges ?? null } });
    d.log.info({ signature: rec.signature, slot: c.status.slot }, 'landed');
    return { done: 'landed' };
  }
  await d.move(rec, 'failed', { result: { slot: c.status.slot }, error: { code: 'TX_FAILED', message: `landed with an error: ${JSON.stringify(c.status.err)}` } });
  d.log.warn({ signature: rec.signature, err: c.status.err }, 'landed with an error (fee paid)');
  return { done: 'failed' };
}

/** How often a sponsored transaction is looked for, and sent again while it is not found, ms. */
const POLL_MS = 1_000;
const RESEND_EVERY_MS = 2_000;

/** Sends the signed bytes once by the intent's route; returns what the venue reported when it executed them. */
async function submitOnce(d: SubmitDeps, route: SubmitRoute, signedTx: string, tx: VersionedTransaction): Promise<Record<string, unknown> | undefined> {
  const { jup, rpc } = d;
  switch (route.via) {
    case 'ultra':
      try {
        const r = await jup.ultra.executeOrder({ signedTransaction: signedTx, requestId: route.requestId });
        return { inAmount: r.totalInputAmount, outAmount: r.totalOutputAmount, slot: r.slot, signature: r.signature };
      } catch (err) {
        // The venue forgot the request (older than its cache): the same bytes can still go through RPC, but only
        // if they are complete. An Ultra transaction the venue co-signs at execute carries an empty signature
        // slot; a node refuses it in preflight. Leave such bytes to the confirmation: they land by signature or
        // provably expire, and only then is the intent rebuilt as a new attempt.
        if (err instanceof ExecuteError && err.executeCode === -1 && fullySigned(tx)) {
          await rpc.send(tx.serialize());
          return undefined;
        }
        throw err;
      }
    case 'trigger':
      await jup.trigger.execute({ signedTransaction: signedTx, requestId: route.requestId });
      return undefined;
    case 'recurring':
      await jup.recurring.execute({ signedTransaction: signedTx, requestId: route.requestId });
      return undefined;
    case 'rpc':
      await rpc.send(tx.serialize());
      return undefined;
  }
}

function parseRoute(route: Record<string, unknown> | null): SubmitRoute {
  const via = route?.via;
  const requestId = typeof route?.requestId === 'string' ? route.requestId : undefined;
  if ((via === 'ultra' || via === 'trigger' || via === 'recurring') && requestId) return { via, requestId };
  if (via === 'rpc') return { via };
  throw new KeeperError('INTENT_CORRUPT', 'halt', `unreadable submit route ${JSON.stringify(route)}`);
}

/** The slot recorded before signing (0 for records written before it was kept). */
function minSlotOf(route: Record<string, unknown> | null): number {
  const v = route?.minSlot;
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : typeof v === 'bigint' ? Number(v) : 0;
}

/** Whether every required signature slot of a transaction is filled (none is still the all-zero placeholder). */
function fullySigned(tx: VersionedTransaction): boolean {
  return tx.signatures.every((s) => s.some((b) => b !== 0));
}

function summarize(err: unknown): Record<string, unknown> {
  if (err instanceof KeeperError) return { code: err.code, message: err.message };
  return { message: err instanceof Error ? err.message.slice(0, 300) : String(err) };
}
