// A hostile venue for acceptance tests (issue 7): an HTTP proxy in front of a running simulator that a keeper uses
// as its venue (`venue: {kind: simulator, url: <proxy url>}`, so also <proxy url>/rpc as its RPC). It forwards
// everything, and per a plan the test sets it rewrites Ultra orders and Metis quote/swap pairs into attacks
// (test/helpers/hostileAttacks.ts) and the products' builds into product attacks (hostileProducts.ts), lands what
// the wallet signs of them (the vault or keeper still co-signs), records every
// request and every signature the keeper sends, can hold build requests, and can make simulateTransaction answer
// BlockhashNotFound like a node that lags the venue.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import bs58 from 'bs58';
import { Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import type { SimToken } from '../../src/sim/catalog.js';
import { verifyEd25519 } from '../../src/sim/chain/ed25519.js';
import type { Venue } from '../../src/sim/venue.js';
import { BONK, JUP, SOL } from './sim.js';
import { feedWorth, rewriteTransaction, type Attack, type Rewrite } from './hostileAttacks.js';
import { claimAsked, lieAboutAmounts, quoteKey, setOut } from './hostileFields.js';
import { createProductProxy } from './hostileProductProxy.js';
import { rewriteRfqTransaction } from './hostileRfq.js';
import { isBuildRequest, STRANGER_LAMPORTS, type AttackRecord, type AttackRule, type Flow, type HostileVenue, type RpcFault, type SeenRequest, type SeenSignature } from './hostileTypes.js';

export * from './hostileAttacks.js';
export * from './hostileTypes.js';
export * from './hostileProducts.js';
export * from './hostileProductProxy.js';

interface ActiveRule extends AttackRule {
  index: number;
  seen: number;
  used: number;
}

interface ActiveFault extends RpcFault {
  id: number;
  remaining: number;
  untilMs: number;
}

interface PendingMetis {
  record: AttackRecord;
  /** The quote the simulator really gave (sent to /swap in place of the lie). */
  original: Record<string, unknown>;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const DROPPED_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive', 'host']);

/** Starts a hostile venue in front of `sim` (in the same process: it reads the simulator's prices and tickets). */
export async function startHostileVenue(sim: RunningSimulator, o: { stranger?: Keypair; strangerLamports?: bigint } = {}): Promise<HostileVenue> {
  const stranger = o.stranger ?? Keypair.generate();
  // The stranger exists (rent-exempt), as a thief's account would: a transfer of a single lamport to an empty
  // address fails for rent, which would make the smallest theft an attack that cannot land.
  const strangerLamports = o.strangerLamports ?? STRANGER_LAMPORTS;
  if (strangerLamports > 0n && sim.ctx.state.venue.chain.lamports(stranger.publicKey) === 0n) sim.ctx.state.venue.airdrop(stranger.publicKey, SOL, strangerLamports);
  const rules: ActiveRule[] = [];
  const records: AttackRecord[] = [];
  const seen: SeenRequest[] = [];
  const sigs: SeenSignature[] = [];
  const faults: ActiveFault[] = [];
  const holds: Array<{ match: (r: SeenRequest) => boolean; waiting: Array<{ request: SeenRequest; go: () => void }>; caught: number; released: boolean; waiters: Array<() => void> }> = [];
  let nextFault = 1;
  let faulted = 0;
  /** Attacked Ultra orders by requestId; attacked Metis transactions by message. */
  const ultraAttacks = new Map<string, { record: AttackRecord; rewrite: Rewrite; claimedOut: string }>();
  const pendingMetis = new Map<string, PendingMetis>();
  const metisAttacks = new Map<string, { record: AttackRecord; rewrite: Rewrite }>();
  const venue = (): Venue => sim.ctx.state.venue;
  const products = createProductProxy(venue, stranger);

  const pickRule = (via: Flow, amount: bigint, inputMint: string, outputMint: string): ActiveRule | undefined => {
    const rule = rules.find((r) => (r.via === undefined || r.via === via) && (r.amount === undefined || r.amount === amount) && (r.inputMint === undefined || r.inputMint === inputMint) && (r.outputMint === undefined || r.outputMint === outputMint) && (r.count === undefined || r.used < r.count));
    if (!rule) return undefined;
    const n = rule.seen;
    rule.seen += 1;
    if (n % (rule.every ?? 1) !== (rule.offset ?? 0)) return undefined;
    rule.used += 1;
    return rule;
  };

  const forward = async (method: string, pathAndQuery: string, headers: IncomingMessage['headers'], body: string | undefined): Promise<Answer> => {
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (typeof v === 'string' && !DROPPED_HEADERS.has(k)) h[k] = v;
    const res = await fetch(`${sim.url}${pathAndQuery}`, { method, headers: h, body: method === 'GET' || method === 'HEAD' ? undefined : body });
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!DROPPED_HEADERS.has(k)) out[k] = v;
    });
    return { status: res.status, headers: out, body: await res.text() };
  };

  const recordSignatures = (tx: VersionedTransaction, source: SeenSignature['source'], path: string, requestId?: string): void => {
    const message = tx.message.serialize();
    const n = tx.message.header.numRequiredSignatures;
    for (let i = 0; i < n; i += 1) {
      const sig = tx.signatures[i];
      if (!sig || sig.every((b) => b === 0)) continue;
      const signer = tx.message.staticAccountKeys[i]!;
      sigs.push({ signature: bs58.encode(sig), signer: signer.toBase58(), valid: verifyEd25519(signer.toBytes(), message, sig), message: Buffer.from(message).toString('base64'), source, path, requestId, at: Date.now() });
    }
  };

  /** Sends signed bytes to the simulator's RPC as a hostile venue lands them; returns the signature or the error. */
  const land = async (tx: VersionedTransaction, needsStranger: boolean): Promise<{ signature: string } | { error: string }> => {
    if (needsStranger) tx.sign([stranger]);
    const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64' }] }) });
    const json = (await res.json()) as { result?: string; error?: { message: string } };
    return typeof json.result === 'string' ? { signature: json.result } : { error: json.error?.message ?? 'no result' };
  };

  const tokenOf = (mint: string): SimToken => {
    const t = venue().token(mint);
    if (!t) throw new Error(`the simulator lists no token ${mint}`);
    return t;
  };

  const otherMint = (attack: Extract<Attack, { kind: 'output-mint' }>, asked: string, input: string): string => {
    const wanted = attack.mint ?? BONK;
    return wanted === asked || wanted === input ? JUP : wanted;
  };

  // --- Ultra ---------------------------------------------------------------------------------------------------
  const ultraOrder = async (req: IncomingMessage, url: URL): Promise<Answer> => {
    const q = url.searchParams;
    const inputMint = q.get('inputMint') ?? '';
    const asked = q.get('outputMint') ?? '';
    const amount = /^\d+$/.test(q.get('amount') ?? '') ? BigInt(q.get('amount')!) : -1n;
    const taker = q.get('taker');
    const rule = taker ? pickRule('ultra', amount, inputMint, asked) : undefined;
    if (!rule) return forward('GET', url.pathname + url.search, req.headers, undefined);
    const attack = rule.attack;
    const outputMint = attack.kind === 'output-mint' ? otherMint(attack, asked, inputMint) : asked;
    const fwd = new URLSearchParams(q);
    fwd.set('outputMint', outputMint);
    const answer = await forward('GET', `${url.pathname}?${fwd.toString()}`, req.headers, undefined);
    const record: AttackRecord = { rule: rule.index, via: 'ultra', attack, requestId: null, wallet: taker!, inputMint, askedOutputMint: asked, outputMint, amount, served: false, landed: [] };
    records.push(record);
    try {
      if (answer.status !== 200) throw new Error(`the simulator answered ${answer.status}: ${answer.body.slice(0, 200)}`);
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      if (typeof body.transaction !== 'string' || body.transaction === '') throw new Error(`the simulator built no transaction: ${answer.body.slice(0, 200)}`);
      record.requestId = String(body.requestId);
      record.honest = { ...body };
      const input = tokenOf(inputMint);
      const output = tokenOf(outputMint);
      // A JupiterZ order (the market maker its fee payer and counterparty) is attacked on its own shape.
      const rewriteOrder = body.router === 'jupiterz' ? rewriteRfqTransaction : rewriteTransaction;
      const rewrite = rewriteOrder(VersionedTransaction.deserialize(Buffer.from(body.transaction, 'base64')), attack, { venue: venue(), wallet: new PublicKey(taker!), stranger, input, output, inAmount: amount });
      const lie: Record<string, unknown> = { ...body, transaction: Buffer.from(rewrite.tx.serialize()).toString('base64') };
      lieAboutAmounts(lie, rewrite, attack, { venue: venue(), output, asked: tokenOf(asked) });
      if (rewrite.priorityFeeLamports !== undefined) lie.prioritizationFeeLamports = Number(rewrite.priorityFeeLamports);
      if (rewrite.coverLamports !== undefined) lie.rentFeeLamports = Number(BigInt(Number(body.rentFeeLamports ?? 0)) + rewrite.coverLamports);
      Object.assign(record, { served: true, transaction: lie.transaction, message: Buffer.from(rewrite.tx.message.serialize()).toString('base64'), description: rewrite.description, servedBody: lie });
      ultraAttacks.set(record.requestId, { record, rewrite, claimedOut: String(lie.outAmount) });
      return { ...answer, body: JSON.stringify(lie) };
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
      return answer;
    }
  };

  const ultraExecute = async (req: IncomingMessage, url: URL, text: string): Promise<Answer> => {
    let body: { signedTransaction?: unknown; requestId?: unknown } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    const requestId = typeof body?.requestId === 'string' ? body.requestId : undefined;
    const attacked = requestId ? ultraAttacks.get(requestId) : undefined;
    if (!attacked || typeof body?.signedTransaction !== 'string') return forward('POST', url.pathname + url.search, req.headers, text);
    const tx = VersionedTransaction.deserialize(Buffer.from(body.signedTransaction, 'base64'));
    if (attacked.record.attack.kind === 'output-mint') {
      // The simulator built this order (in the other mint) and settles it itself.
      const answer = await forward('POST', url.pathname + url.search, req.headers, text);
      const sig = JSON.parse(answer.body) as { status?: unknown; signature?: unknown };
      if (sig.status === 'Success' && typeof sig.signature === 'string') attacked.record.landed.push(sig.signature);
      return answer;
    }
    if (Buffer.from(tx.message.serialize()).toString('base64') !== attacked.record.message) return forward('POST', url.pathname + url.search, req.headers, text);
    // The keeper signed the attack: a hostile venue lands it, as the real one would land what it built.
    const landed = await land(tx, attacked.rewrite.needsStranger);
    const json = (b: unknown): Answer => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
    if ('error' in landed) return json({ status: 'Failed', signature: '', slot: '0', code: -1000, error: `Failed to land: ${landed.error}` });
    attacked.record.landed.push(landed.signature);
    const slot = venue().chain.signatureStatus(landed.signature)?.slot ?? venue().clock.slot();
    return json({ status: 'Success', signature: landed.signature, slot: slot.toString(), code: 0, totalInputAmount: attacked.record.amount.toString(), totalOutputAmount: attacked.claimedOut, inputAmountResult: attacked.record.amount.toString(), outputAmountResult: attacked.claimedOut, swapEvents: [] });
  };

  // --- Metis ---------------------------------------------------------------------------------------------------
  const metisQuote = async (req: IncomingMessage, url: URL): Promise<Answer> => {
    const q = url.searchParams;
    const inputMint = q.get('inputMint') ?? '';
    const asked = q.get('outputMint') ?? '';
    const amount = /^\d+$/.test(q.get('amount') ?? '') ? BigInt(q.get('amount')!) : -1n;
    const rule = pickRule('metis', amount, inputMint, asked);
    if (!rule) return forward('GET', url.pathname + url.search, req.headers, undefined);
    const attack = rule.attack;
    const outputMint = attack.kind === 'output-mint' ? otherMint(attack, asked, inputMint) : asked;
    const fwd = new URLSearchParams(q);
    fwd.set('outputMint', outputMint);
    const answer = await forward('GET', `${url.pathname}?${fwd.toString()}`, req.headers, undefined);
    const record: AttackRecord = { rule: rule.index, via: 'metis', attack, requestId: null, wallet: '', inputMint, askedOutputMint: asked, outputMint, amount, served: false, landed: [] };
    records.push(record);
    try {
      if (answer.status !== 200) throw new Error(`the simulator answered ${answer.status}: ${answer.body.slice(0, 200)}`);
      const quote = JSON.parse(answer.body) as Record<string, unknown>;
      const lie = { ...quote };
      const input = tokenOf(inputMint);
      const output = tokenOf(outputMint);
      if (attack.kind === 'inflow-short') {
        const worth = feedWorth(venue(), input, output, amount);
        const lowered = (worth * BigInt(10_000 - (attack.bps ?? 500))) / 10_000n;
        setOut(lie, lowered < BigInt(String(quote.outAmount)) ? lowered : BigInt(String(quote.outAmount)));
      }
      if (attack.kind === 'output-mint' && (attack.claim ?? 'asked') === 'asked') claimAsked(lie, venue(), output, tokenOf(asked));
      pendingMetis.set(quoteKey(lie), { record, original: quote });
      record.honest = { quote };
      record.servedBody = { quote: lie };
      return { ...answer, body: JSON.stringify(lie) };
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
      return answer;
    }
  };

  const metisSwap = async (req: IncomingMessage, url: URL, text: string): Promise<Answer> => {
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    const quote = body?.quoteResponse;
    const pending = quote && typeof quote === 'object' ? pendingMetis.get(quoteKey(quote as Record<string, unknown>)) : undefined;
    if (!body || !pending) return forward('POST', url.pathname + url.search, req.headers, text);
    pendingMetis.delete(quoteKey(quote as Record<string, unknown>));
    const { record, original } = pending;
    const answer = await forward('POST', url.pathname + url.search, req.headers, JSON.stringify({ ...body, quoteResponse: original }));
    try {
      if (answer.status !== 200) throw new Error(`the simulator answered ${answer.status}: ${answer.body.slice(0, 200)}`);
      const built = JSON.parse(answer.body) as Record<string, unknown>;
      record.wallet = String(body.userPublicKey);
      const rewrite = rewriteTransaction(VersionedTransaction.deserialize(Buffer.from(String(built.swapTransaction), 'base64')), record.attack, {
        venue: venue(),
        wallet: new PublicKey(record.wallet),
        stranger,
        input: tokenOf(record.inputMint),
        output: tokenOf(record.outputMint),
        inAmount: record.amount,
      });
      const lie: Record<string, unknown> = { ...built, swapTransaction: Buffer.from(rewrite.tx.serialize()).toString('base64') };
      const fee = rewrite.priorityFeeLamports ?? (rewrite.coverLamports !== undefined ? BigInt(Number(built.prioritizationFeeLamports ?? 0)) + rewrite.coverLamports : undefined);
      if (fee !== undefined) lie.prioritizationFeeLamports = Number(fee);
      if (rewrite.priorityFeeLamports !== undefined) {
        const units = BigInt(Number(built.computeUnitLimit ?? 0) || 1);
        const micro = Number((rewrite.priorityFeeLamports * 1_000_000n) / units);
        lie.prioritizationType = { computeBudget: { microLamports: micro, estimatedMicroLamports: micro } };
      }
      const message = Buffer.from(rewrite.tx.message.serialize()).toString('base64');
      Object.assign(record, { served: true, transaction: lie.swapTransaction, message, description: rewrite.description, honest: { ...(record.honest as object), swap: built }, servedBody: { ...(record.servedBody as object), swap: lie } });
      metisAttacks.set(message, { record, rewrite });
      return { ...answer, body: JSON.stringify(lie) };
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
      return answer;
    }
  };

  // --- RPC -----------------------------------------------------------------------------------------------------
  const rpcCall = async (call: Record<string, unknown>, headers: IncomingMessage['headers'], entry: SeenRequest): Promise<unknown> => {
    const method = typeof call.method === 'string' ? call.method : '';
    const params = Array.isArray(call.params) ? (call.params as unknown[]) : [];
    if (method === 'sendTransaction' || method === 'simulateTransaction') {
      const tx = decodeParam(params);
      if (tx) {
        recordSignatures(tx, method, '/rpc');
        if (method === 'simulateTransaction' && takeFault(method)) {
          faulted += 1;
          entry.faulted = true;
          return { jsonrpc: '2.0', id: call.id ?? null, result: { context: { apiVersion: '2.2.0', slot: Number(venue().clock.slot()) }, value: { err: 'BlockhashNotFound', logs: [], accounts: null, unitsConsumed: 0, returnData: null, innerInstructions: null, replacementBlockhash: null, loadedAccountsDataSize: 0 } } };
        }
        const attacked = method === 'sendTransaction' ? metisAttacks.get(Buffer.from(tx.message.serialize()).toString('base64')) : undefined;
        const product = method === 'sendTransaction' ? products.attackedMessage(Buffer.from(tx.message.serialize()).toString('base64')) : undefined;
        if (attacked?.rewrite.needsStranger) {
          // The hostile venue is also the RPC: it adds the stranger's signature the keeper could not give.
          tx.sign([stranger]);
          const cfg = (params[1] && typeof params[1] === 'object' ? params[1] : {}) as Record<string, unknown>;
          call = { ...call, params: [Buffer.from(tx.serialize()).toString('base64'), { ...cfg, encoding: 'base64' }] };
        }
        const answer = await forward('POST', '/rpc', headers, JSON.stringify(call));
        const json = JSON.parse(answer.body) as { result?: unknown };
        if (attacked && typeof json.result === 'string') attacked.record.landed.push(json.result);
        if (product && typeof json.result === 'string') product.landed.push(json.result);
        return json;
      }
    }
    const answer = await forward('POST', '/rpc', headers, JSON.stringify(call));
    return JSON.parse(answer.body) as unknown;
  };

  const rpc = async (req: IncomingMessage, text: string, entry: SeenRequest): Promise<Answer> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return forward('POST', '/rpc', req.headers, text);
    }
    const calls = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
    const out: unknown[] = [];
    for (const c of calls) out.push(c && typeof c === 'object' ? await rpcCall(c as Record<string, unknown>, req.headers, entry) : await forward('POST', '/rpc', req.headers, JSON.stringify(c)).then((a) => JSON.parse(a.body) as unknown));
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.isArray(parsed) ? out : out[0]) };
  };

  const takeFault = (method: RpcFault['method']): boolean => {
    const now = Date.now();
    for (let i = faults.length - 1; i >= 0; i -= 1) if (faults[i]!.remaining <= 0 || faults[i]!.untilMs <= now) faults.splice(i, 1);
    const f = faults.find((x) => x.method === method);
    if (!f) return false;
    f.remaining -= 1;
    return true;
  };

  // --- products ------------------------------------------------------------------------------------------------
  /** A trigger or recurring execute of an attacked product transaction: the hostile venue lands it through RPC. */
  const productExecute = async (req: IncomingMessage, url: URL, text: string): Promise<Answer> => {
    let signed: VersionedTransaction | undefined;
    try {
      const b = JSON.parse(text) as { signedTransaction?: unknown };
      if (typeof b.signedTransaction === 'string') signed = VersionedTransaction.deserialize(Buffer.from(b.signedTransaction, 'base64'));
    } catch {
      signed = undefined;
    }
    const attacked = signed ? products.attackedMessage(Buffer.from(signed.message.serialize()).toString('base64')) : undefined;
    if (!signed || !attacked) return forward('POST', url.pathname + url.search, req.headers, text);
    const landed = await land(signed, false);
    const json = (b: unknown): Answer => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
    if ('error' in landed) return json({ status: 'Failed', signature: '', error: `Failed to land: ${landed.error}`, code: -1000 });
    attacked.landed.push(landed.signature);
    return json({ status: 'Success', signature: landed.signature, code: 0, order: null, error: null });
  };

  // --- server --------------------------------------------------------------------------------------------------
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://proxy');
    const method = req.method ?? 'GET';
    const entry: SeenRequest = { at: Date.now(), method, path: url.pathname, query: url.search };
    if (url.pathname === '/ultra/v1/order' || url.pathname === '/swap/v1/quote') entry.amount = url.searchParams.get('amount') ?? undefined;
    if (url.pathname === '/rpc') entry.rpc = rpcMethods(text);
    seen.push(entry);
    if (method === 'POST' && url.pathname.endsWith('/execute')) {
      try {
        const b = JSON.parse(text) as { signedTransaction?: unknown; requestId?: unknown };
        if (typeof b.signedTransaction === 'string') recordSignatures(VersionedTransaction.deserialize(Buffer.from(b.signedTransaction, 'base64')), 'execute', url.pathname, typeof b.requestId === 'string' ? b.requestId : undefined);
      } catch {
        // not a transaction: the venue answers it
      }
    }
    for (const h of holds) {
      if (h.released || !h.match(entry)) continue;
      h.caught += 1;
      for (const w of h.waiters.splice(0)) w();
      await new Promise<void>((resolve) => h.waiting.push({ request: entry, go: resolve }));
    }
    let answer: Answer | undefined;
    if (method === 'GET' && url.pathname === '/ultra/v1/order') answer = await ultraOrder(req, url);
    else if (method === 'POST' && url.pathname === '/ultra/v1/execute') answer = await ultraExecute(req, url, text);
    else if (method === 'GET' && url.pathname === '/swap/v1/quote') answer = await metisQuote(req, url);
    else if (method === 'POST' && url.pathname === '/swap/v1/swap') answer = await metisSwap(req, url, text);
    else if (method === 'POST' && url.pathname === '/rpc') answer = await rpc(req, text, entry);
    else if (method === 'POST' && (url.pathname === '/trigger/v1/execute' || url.pathname === '/recurring/v1/execute')) answer = await productExecute(req, url, text);
    else answer = await products.build(method, url.pathname + url.search, url.pathname, text, (body) => forward(method, url.pathname + url.search, req.headers, body));
    answer ??= await forward(method, url.pathname + url.search, req.headers, text);
    res.writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)) });
    res.end(answer.body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `hostile venue: ${err instanceof Error ? err.message : String(err)}` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    stranger,
    plan: (rule) => {
      const index = rules.length;
      rules.push({ ...rule, index, seen: 0, used: 0 });
      return index;
    },
    clearPlan: () => {
      rules.length = 0;
    },
    planProduct: (rule) => products.plan(rule),
    clearProductPlan: () => products.clearPlan(),
    productAttacks: () => products.attacks(),
    attacks: () => [...records],
    requests: () => [...seen],
    counts: () => {
      const byPath: Record<string, number> = {};
      const rpcCounts: Record<string, number> = {};
      let builds = 0;
      for (const r of seen) {
        const key = `${r.method} ${r.path}`;
        byPath[key] = (byPath[key] ?? 0) + 1;
        for (const m of r.rpc ?? []) rpcCounts[m] = (rpcCounts[m] ?? 0) + 1;
        if (isBuildRequest(r)) builds += 1;
      }
      const n = (k: string) => byPath[k] ?? 0;
      return {
        orders: n('GET /ultra/v1/order'),
        quotes: n('GET /swap/v1/quote'),
        swaps: n('POST /swap/v1/swap') + n('POST /swap/v1/swap-instructions'),
        builds,
        executes: seen.filter((r) => r.method === 'POST' && r.path.endsWith('/execute')).length,
        byPath,
        rpc: rpcCounts,
        faulted,
      };
    },
    signatures: (f = {}) => sigs.filter((s) => (f.signer === undefined || s.signer === f.signer) && (!f.validOnly || s.valid)),
    rpcFault: (fault) => {
      const id = nextFault++;
      faults.push({ ...fault, id, remaining: fault.count ?? Number.POSITIVE_INFINITY, untilMs: fault.durationMs !== undefined ? Date.now() + fault.durationMs : Number.POSITIVE_INFINITY });
      return id;
    },
    clearRpcFaults: (id) => {
      for (let i = faults.length - 1; i >= 0; i -= 1) if (id === undefined || faults[i]!.id === id) faults.splice(i, 1);
    },
    hold: (match = isBuildRequest) => {
      const h = { match, waiting: [] as Array<{ request: SeenRequest; go: () => void }>, caught: 0, released: false, waiters: [] as Array<() => void> };
      holds.push(h);
      return {
        held: () => h.waiting.length,
        heldRequests: () => h.waiting.map((w) => w.request),
        caught: () => h.caught,
        waitForCaught: (n, timeoutMs = 60_000) =>
          new Promise<void>((resolve, reject) => {
            const check = () => {
              if (h.caught >= n) {
                clearTimeout(timer);
                resolve();
              } else h.waiters.push(check);
            };
            const timer = setTimeout(() => reject(new Error(`the hold caught ${h.caught} of ${n} requests within ${timeoutMs} ms`)), timeoutMs);
            check();
          }),
        release: () => {
          h.released = true;
          for (const w of h.waiting.splice(0)) w.go();
        },
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const h of holds) {
          h.released = true;
          for (const w of h.waiting.splice(0)) w.go();
        }
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decodeParam(params: unknown[]): VersionedTransaction | undefined {
  const encoded = params[0];
  if (typeof encoded !== 'string') return undefined;
  const cfg = params[1] && typeof params[1] === 'object' ? (params[1] as { encoding?: unknown }) : {};
  try {
    return VersionedTransaction.deserialize(cfg.encoding === 'base64' ? Buffer.from(encoded, 'base64') : bs58.decode(encoded));
  } catch {
    return undefined;
  }
}

function rpcMethods(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    const calls = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
    return calls.map((c) => (c && typeof c === 'object' && typeof (c as { method?: unknown }).method === 'string' ? (c as { method: string }).method : '?'));
  } catch {
    return ['?'];
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
