import { Connection, VersionedTransaction, type AccountInfo, type Commitment, type PublicKey, type SignatureStatus } from '@solana/web3.js';
import { httpRequest } from '../lib/http.js';
import { publicUrl } from '../lib/urls.js';

/** Most accounts one getMultipleAccounts call may ask for. */
const MAX_ACCOUNTS_PER_CALL = 100;

/** Most signatures one getSignatureStatuses call may ask for. */
const MAX_SIGNATURES_PER_CALL = 256;
/** Most other calls sent beside them in one shared batch. */
const MAX_SHARED_CALLS = 64;

/** Longest wait for one raw JSON-RPC round trip (a batch included), ms. */
const RAW_TIMEOUT_MS = 30_000;

/** One call of a JSON-RPC batch. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** One answer of a JSON-RPC batch, in the order of the calls. */
export type RpcReply = { ok: true; result: unknown } | { ok: false; error: RpcReplyError };

/** A JSON-RPC error object (code -32016: the node has not reached the minContextSlot asked for). */
export interface RpcReplyError {
  code: number;
  message: string;
  data?: unknown;
}

/** An account as a node answers it in base64 encoding (lamports as a JSON number, as web3.js reads them too). */
export interface RawAccount {
  lamports: number;
  owner: string;
  data: [string, string];
  executable: boolean;
}

/** A signature's status, as the engine needs it. */
export interface TxStatus {
  slot: number;
  err: unknown;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/**
 * The Solana JSON-RPC calls the engine makes, over web3.js's Connection (HTTP only: the engine polls, it never
 * subscribes, so no WebSocket is opened). Confirmation is by signature status, bounded by lastValidBlockHeight.
 */
export class SolanaRpc {
  readonly connection: Connection;
  readonly commitment: Commitment;
  private readonly url: string;
  /** A fetch the caller gave (tests); otherwise the raw calls go through node:http with kept-alive connections. */
  private readonly customFetch: typeof fetch | undefined;
  private nextId = 1;
  /** Set once the node answered a batch with anything but a batch answer: calls then go one request each. */
  private batchRefused = false;

  constructor(url: string, options: { commitment?: Commitment; fetch?: typeof fetch } = {}) {
    this.commitment = options.commitment ?? 'confirmed';
    this.url = url;
    this.customFetch = options.fetch;
    this.connection = new Connection(url, { commitment: this.commitment, disableRetryOnRateLimit: true, fetch: options.fetch });
  }

  /**
   * Sends JSON-RPC calls as one batch (one HTTP request), answers in the order of the calls. The node answers each
   * call on its own (a batch is not a transaction): callers that need an order between the answers check the
   * context slots they carry. A node that refuses batches gets the calls one request each from then on. Throws on
   * a transport failure or an answer that is not JSON-RPC; an error object of one call is that call's reply.
   * The answers are read without web3.js's validation layer: callers check the fields they use.
   */
  async batch(calls: readonly RpcCall[]): Promise<RpcReply[]> {
    if (calls.length === 0) return [];
    if (this.batchRefused || calls.length === 1) return Promise.all(calls.map((c) => this.single(c)));
    const ids = calls.map(() => this.nextId++);
    let body: unknown;
    try {
      body = await this.post(calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params })));
    } catch (err) {
      // A gateway that refuses batches may say so with a client error status (a rate limit is not a refusal).
      if (!(err instanceof HttpStatusError) || err.status < 400 || err.status >= 500 || err.status === 429) throw err;
      this.batchRefused = true;
      return Promise.all(calls.map((c) => this.single(c)));
    }
    if (!Array.isArray(body)) {
      // A node or gateway that does not take batches answers one error object (or something else) for the lot.
      this.batchRefused = true;
      return Promise.all(calls.map((c) => this.single(c)));
    }
    const byId = new Map<unknown, unknown>();
    for (const r of body as unknown[]) if (r && typeof r === 'object' && 'id' in r) byId.set((r).id, r);
    return ids.map((id, i) => replyOf(byId.get(id), calls[i]!.method));
  }

  private async single(call: RpcCall): Promise<RpcReply> {
    return replyOf(await this.post({ jsonrpc: '2.0', id: this.nextId++, method: call.method, params: call.params }), call.method);
  }

  private async post(payload: unknown): Promise<unknown> {
    const body = JSON.stringify(payload);
    const { status, statusText, text } = this.customFetch ? await this.viaFetch(this.customFetch, body) : await this.viaHttp(body);
    if (status < 200 || status >= 300) throw new HttpStatusError(status, `${status} ${statusText}: ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`the RPC node answered something that is not JSON: ${text.slice(0, 200)}`);
    }
  }

  private async viaFetch(f: typeof fetch, body: string): Promise<{ status: number; statusText: string; text: string }> {
    const res = await f(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(RAW_TIMEOUT_MS) });
    return { status: res.status, statusText: res.statusText, text: await res.text() };
  }

  /** One POST over node:http (fetch's stream machinery costs several times the CPU for these small exchanges). */
  private async viaHttp(body: string): Promise<{ status: number; statusText: string; text: string }> {
    // Errors name the node (scheme and host: a provider's key may be in the path or the query) and keep the cause.
    const timeout = AbortSignal.timeout(RAW_TIMEOUT_MS);
    try {
      return await httpRequest(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: timeout });
    } catch (err) {
      if (timeout.aborted) throw new Error(`the RPC node at ${publicUrl(this.url)} did not answer within ${RAW_TIMEOUT_MS} ms`);
      const e = err as NodeJS.ErrnoException;
      throw Object.assign(new Error(`cannot reach the RPC node at ${publicUrl(this.url)}: ${e.message}`, { cause: err }), { code: e.code });
    }
  }

  /** The current block height at the engine's commitment, from a node at least at `minContextSlot`. */
  async blockHeight(minContextSlot?: number): Promise<bigint> {
    return BigInt(await this.connection.getBlockHeight({ commitment: this.commitment, ...(minContextSlot !== undefined ? { minContextSlot } : {}) }));
  }

  /** The current slot at the engine's commitment. */
  async slot(): Promise<number> {
    return this.connection.getSlot(this.commitment);
  }

  /** The lowest slot the node keeps history for: a signature absent from it may be older than that. */
  async minimumLedgerSlot(): Promise<number> {
    return this.connection.getMinimumLedgerSlot();
  }

  /**
   * A signature's status, searching history (so "absent" means absent, not "out of the status cache"), with the slot
   * of the node that answered.
   */
  async status(signature: string): Promise<{ slot: number; value: TxStatus | null }> {
    const res = await this.connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
    const s: SignatureStatus | null | undefined = res.value[0];
    return { slot: res.context.slot, value: s ? { slot: s.slot, err: s.err, confirmationStatus: s.confirmationStatus ?? null } : null };
  }

  /**
   * A signature's status as `status` reads it, asked together with every other status and fee read of this process
   * pending at the time: one getSignatureStatuses for all the signatures (and the fee reads beside it in the same
   * batch), one request in flight at a time; what is asked meanwhile goes in the next. The request leaves after the
   * call, so the answer is at least as recent as a read made by the caller at that moment.
   */
  async sharedStatus(signature: string): Promise<{ slot: number; value: TxStatus | null }> {
    return new Promise((resolve, reject) => {
      this.shared.statuses.push({ signature, resolve, reject });
      this.kickShared();
    });
  }

  /**
   * The fee (lamports) a landed transaction paid, as the chain recorded it; null when the node has no record of it.
   * With `payer`, what that account paid of it: 0 when another account was the fee payer (Ultra's RFQ and gasless
   * routes). Read with the shared statuses (see `sharedStatus`), base64-encoded: only the meta's fee and the fee
   * payer (the message's first account) are used.
   */
  async transactionFee(signature: string, payer?: string): Promise<bigint | null> {
    const method = 'getTransaction';
    const reply = await new Promise<RpcReply>((resolve, reject) => {
      this.shared.calls.push({ call: { method, params: [signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'base64' }] }, resolve, reject });
      this.kickShared();
    });
    const tx = resultOf(reply, method) as { meta?: { fee?: unknown } | null; transaction?: unknown } | null;
    if (!tx?.meta) return null;
    const fee = tx.meta.fee;
    if (typeof fee !== 'number' || !Number.isSafeInteger(fee) || fee < 0) throw new Error(`${method}: the RPC node answered a fee that is not a number of lamports`);
    if (payer !== undefined && feePayerOf(tx.transaction, method) !== payer) return 0n;
    return BigInt(fee);
  }

  /**
   * The block height at the engine's commitment, read with the shared statuses (see `sharedStatus`): the request
   * leaves after the call, so the height is never lower than one read by the caller at that moment.
   */
  async sharedBlockHeight(): Promise<bigint> {
    const method = 'getBlockHeight';
    const reply = await new Promise<RpcReply>((resolve, reject) => {
      this.shared.calls.push({ call: { method, params: [{ commitment: this.commitment }] }, resolve, reject });
      this.kickShared();
    });
    const height = resultOf(reply, method);
    if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) throw new Error(`${method}: the RPC node answered a height that is not a block number`);
    return BigInt(height);
  }

  private readonly shared: {
    statuses: Array<{ signature: string; resolve: (s: { slot: number; value: TxStatus | null }) => void; reject: (err: unknown) => void }>;
    calls: Array<{ call: RpcCall; resolve: (r: RpcReply) => void; reject: (err: unknown) => void }>;
    inFlight: boolean;
    scheduled: boolean;
  } = { statuses: [], calls: [], inFlight: false, scheduled: false };

  private kickShared(): void {
    const q = this.shared;
    if (q.inFlight || q.scheduled || (q.statuses.length === 0 && q.calls.length === 0)) return;
    q.scheduled = true;
    // After the current turn: the other executions' reads of this turn join the same request.
    setImmediate(() => {
      q.scheduled = false;
      void this.flushShared();
    });
  }

  private async flushShared(): Promise<void> {
    const q = this.shared;
    if (q.inFlight) return;
    const statuses = q.statuses.splice(0, MAX_SIGNATURES_PER_CALL);
    const calls = q.calls.splice(0, MAX_SHARED_CALLS);
    if (statuses.length === 0 && calls.length === 0) return;
    q.inFlight = true;
    const signatures = [...new Set(statuses.map((s) => s.signature))];
    const batch: RpcCall[] = [...(signatures.length > 0 ? [{ method: 'getSignatureStatuses', params: [signatures, { searchTransactionHistory: true }] }] : []), ...calls.map((c) => c.call)];
    try {
      const replies = await this.batch(batch);
      if (signatures.length > 0) {
        let found: Map<string, { slot: number; value: TxStatus | null }> | undefined;
        let failure: unknown;
        try {
          found = statusesOf(replies[0]!, signatures);
        } catch (err) {
          failure = err;
        }
        for (const s of statuses) {
          if (found) s.resolve(found.get(s.signature)!);
          else s.reject(failure);
        }
      }
      calls.forEach((c, i) => c.resolve(replies[i + (signatures.length > 0 ? 1 : 0)]!));
    } catch (err) {
      for (const s of statuses) s.reject(err);
      for (const c of calls) c.reject(err);
    } finally {
      q.inFlight = false;
      this.kickShared();
    }
  }

  /** Whether a blockhash can still land a transaction, on a node at least at `minContextSlot`, with that node's slot. */
  async blockhashValidity(blockhash: string, minContextSlot?: number): Promise<{ slot: number; valid: boolean }> {
    const res = await this.connection.isBlockhashValid(blockhash, { commitment: this.commitment, ...(minContextSlot !== undefined ? { minContextSlot } : {}) });
    return { slot: res.context.slot, valid: res.value };
  }

  /** Sends signed bytes (preflight at the engine's commitment). Returns the signature. */
  async send(bytes: Uint8Array, options: { skipPreflight?: boolean } = {}): Promise<string> {
    return this.connection.sendRawTransaction(bytes, { skipPreflight: options.skipPreflight ?? false, preflightCommitment: this.commitment, maxRetries: 0 });
  }

  /** Lamports of an account (0 when missing). */
  async lamports(address: PublicKey): Promise<bigint> {
    return BigInt(await this.connection.getBalance(address, this.commitment));
  }
  /**
   * Accounts read together, from a node at least at `minContextSlot`, with the slot they were read at (the
   * highest of the chunks: a later read pinned to it can only see the same state or newer).
   */
  async accountsAt(keys: readonly PublicKey[], minContextSlot?: number): Promise<{ slot: number; accounts: Array<AccountInfo<Buffer> | null> }> {
    const accounts: Array<AccountInfo<Buffer> | null> = [];
    let slot = minContextSlot ?? 0;
    for (let i = 0; i < keys.length; i += MAX_ACCOUNTS_PER_CALL) {
      const res = await this.connection.getMultipleAccountsInfoAndContext([...keys.slice(i, i + MAX_ACCOUNTS_PER_CALL)], {
        commitment: this.commitment,
        ...(minContextSlot !== undefined ? { minContextSlot } : {}),
      });
      slot = Math.max(slot, res.context.slot);
      accounts.push(...res.value);
    }
    return { slot, accounts };
  }
}

/** A batch answer as a reply: its result, or its error object; anything else throws (a malformed answer). */
function replyOf(r: unknown, method: string): RpcReply {
  if (r && typeof r === 'object') {
    const o = r as { result?: unknown; error?: unknown };
    if (o.error && typeof o.error === 'object') {
      const e = o.error as { code?: unknown; message?: unknown; data?: unknown };
      return { ok: false, error: { code: typeof e.code === 'number' ? e.code : 0, message: typeof e.message === 'string' ? e.message : JSON.stringify(o.error), data: e.data } };
    }
    if ('result' in o) return { ok: true, result: o.result };
  }
  throw new Error(`the RPC node gave no answer to ${method}`);
}

/** The RPC endpoint answered with an HTTP error status. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** An RPC error as thrown by the raw calls: the node's code and message (web3.js's SolanaJSONRPCError carries the same). */
export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The fee payer of a transaction as getTransaction answers it base64-encoded (`[base64, 'base64']`). */
function feePayerOf(transaction: unknown, method: string): string {
  const encoded = Array.isArray(transaction) && typeof transaction[0] === 'string' ? transaction[0] : undefined;
  if (encoded === undefined) throw new Error(`${method}: the RPC node answered no base64 transaction`);
  return VersionedTransaction.deserialize(Buffer.from(encoded, 'base64')).message.staticAccountKeys[0]!.toBase58();
}

/** The result of a reply, or throws its error as an RpcCallError. */
export function resultOf(reply: RpcReply, method: string): unknown {
  if (reply.ok) return reply.result;
  throw new RpcCallError(reply.error.code, `${method}: ${reply.error.message}`, reply.error.data);
}

/** A `{ context: { slot }, value }` result, checked; throws on any other shape. */
export function contextual(result: unknown, method: string): { slot: number; value: unknown } {
  const r = result as { context?: { slot?: unknown }; value?: unknown } | null;
  const slot = r?.context?.slot;
  if (!r || typeof slot !== 'number' || !Number.isSafeInteger(slot) || !('value' in r)) throw new Error(`${method}: the RPC node answered without a context slot or value`);
  return { slot, value: r.value };
}

/** A base64-encoded account as a node answers it, checked (null: no such account); throws on any other shape. */
export function rawAccount(v: unknown, method: string): RawAccount | null {
  if (v === null) return null;
  const a: { lamports?: unknown; owner?: unknown; data?: unknown; executable?: unknown } = typeof v === 'object' && v !== undefined ? v : {};
  const data: unknown[] = Array.isArray(a.data) ? (a.data as unknown[]) : [];
  const [payload, encoding] = data;
  if (typeof a.lamports !== 'number' || typeof a.owner !== 'string' || typeof payload !== 'string' || encoding !== 'base64') {
    throw new Error(`${method}: the RPC node answered an account that is not base64-encoded`);
  }
  return { lamports: a.lamports, owner: a.owner, data: [payload, 'base64'], executable: a.executable === true };
}

/** Each signature's status from a getSignatureStatuses answer (in the order asked), with the answer's slot; throws on an error or a bad shape. */
function statusesOf(reply: RpcReply, signatures: readonly string[]): Map<string, { slot: number; value: TxStatus | null }> {
  const method = 'getSignatureStatuses';
  const { slot, value } = contextual(resultOf(reply, method), method);
  if (!Array.isArray(value) || value.length !== signatures.length) throw new Error(`${method}: the RPC node answered ${Array.isArray(value) ? value.length : 'no'} statuses for ${signatures.length} signatures`);
  const out = new Map<string, { slot: number; value: TxStatus | null }>();
  signatures.forEach((sig, i) => {
    const s = value[i] as { slot?: unknown; err?: unknown; confirmationStatus?: unknown } | null;
    if (s === null) {
      out.set(sig, { slot, value: null });
      return;
    }
    if (!s || typeof s.slot !== 'number') throw new Error(`${method}: the RPC node answered a status without a slot`);
    const c = s.confirmationStatus;
    const confirmationStatus = c === 'processed' || c === 'confirmed' || c === 'finalized' ? c : null;
    out.set(sig, { slot, value: { slot: s.slot, err: s.err ?? null, confirmationStatus } });
  });
  return out;
}
