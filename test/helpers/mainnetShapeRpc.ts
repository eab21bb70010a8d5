// An RPC front for mainnet twins (mainnetShape.ts): a small HTTP JSON-RPC proxy in front of the simulator's RPC, in
// the test's process. It answers simulateTransaction of a registered twin by simulating the twin's sim-shaped
// original on the simulator (the caller's config, sigVerify false, inner instructions on) and presenting the answer as
// a node would for the twin: the original's moves as inner instructions of the product instruction (jsonParsed, by the
// simulator's own parser, stackHeight 2, their own CPIs one deeper), the other CPIs at the twin's indexes, an
// instruction error at the twin's index, and the fee payer's lamports charged the twin's signatures. Every other call
// (reads, blockhashes, a transaction it does not know) goes to the simulator unchanged; batches stay one request.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PublicKey } from '@solana/web3.js';
import { parseUiInstruction, type UiInnerInstructions } from '../../src/sim/rpc/parseInstruction.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import type { MainnetTwin } from './mainnetShape.js';

/** An inner instruction as the simulator's answer carries it (any of the UI forms). */
type UiInner = UiInnerInstructions['instructions'][number];

/** The RPC front, started. */
export interface MainnetShapeRpc {
  /** Its JSON-RPC URL. */
  readonly url: string;
  /** A client of it, as the keeper's guard uses one. */
  readonly rpc: SolanaRpc;
  /**
   * Answers simulations of `twin` from its original from now on. A twin is known by its message: two originals whose
   * twins are the same bytes (an honest build, and the same with the program's creations) share one entry, the last
   * registered.
   */
  register(twin: MainnetTwin): void;
  /** The inner instructions it last presented for `twin` (undefined before its first simulation). */
  presented(twin: MainnetTwin): UiInnerInstructions[] | undefined;
  /** Simulations of transactions it did not know (forwarded as they were). */
  readonly unknownSimulations: number;
  close(): Promise<void>;
}

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Starts an RPC front for the simulator RPC at `upstream` on an ephemeral port of 127.0.0.1. */
export async function startMainnetShapeRpc(upstream: string): Promise<MainnetShapeRpc> {
  const twins = new Map<string, MainnetTwin>();
  const shown = new Map<string, UiInnerInstructions[]>();
  let unknown = 0;

  /** The call as sent upstream, and how to present its answer (identity for every call but a twin's simulation). */
  const rewrite = (call: Call): { call: Call; present: (reply: unknown) => unknown } => {
    const same = { call, present: (reply: unknown) => reply };
    if (call.method !== 'simulateTransaction' || !Array.isArray(call.params) || typeof call.params[0] !== 'string') return same;
    const [wire, config] = call.params as [string, Record<string, unknown> | undefined];
    const encoding = config?.encoding === 'base64' ? 'base64' : 'base58';
    if (encoding !== 'base64') return same;
    const twin = twins.get(messageOfWire(wire));
    if (!twin) {
      unknown += 1;
      return same;
    }
    const original = Buffer.from(twin.original.serialize()).toString('base64');
    const upstreamConfig = { ...config, encoding: 'base64', sigVerify: false, replaceRecentBlockhash: false, innerInstructions: true };
    return {
      call: { ...call, params: [original, upstreamConfig] },
      present: (reply) => {
        const presented = presentSimulation(reply, twin, config);
        const inner = (presented as { result?: { value?: { innerInstructions?: UiInnerInstructions[] | null } } }).result?.value?.innerInstructions;
        if (inner) shown.set(twin.key, inner);
        return presented;
      },
    };
  };

  const handle = async (text: string): Promise<string> => {
    const body = JSON.parse(text) as Call | Call[];
    const calls = Array.isArray(body) ? body : [body];
    const plans = calls.map(rewrite);
    const res = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.isArray(body) ? plans.map((p) => p.call) : plans[0]!.call) });
    const answer: unknown = await res.json();
    if (!Array.isArray(body)) return JSON.stringify(plans[0]!.present(answer));
    if (!Array.isArray(answer)) return JSON.stringify(answer);
    // A batch's answers are matched by id, as the client matches them.
    const byId = new Map(calls.map((c, i) => [c.id, plans[i]!]));
    return JSON.stringify(answer.map((r: { id?: unknown }) => byId.get(r?.id)?.present(r) ?? r));
  };

  const server: Server = createServer((req, res) => {
    readBody(req)
      .then(handle)
      .then(
        (out) => res.writeHead(200, { 'content-type': 'application/json' }).end(out),
        (err: unknown) => res.writeHead(502, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err)),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    rpc: new SolanaRpc(url),
    register: (twin) => {
      twins.set(twin.key, twin);
    },
    presented: (twin) => shown.get(twin.key),
    get unknownSimulations() {
      return unknown;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The simulator's answer for the original, as a node would answer the twin: inner instructions re-homed, an
 * instruction error at the twin's index, the fee payer refunded the signatures the twin does not carry.
 */
function presentSimulation(reply: unknown, twin: MainnetTwin, config: Record<string, unknown> | undefined): unknown {
  const r = reply as { result?: { context?: unknown; value?: Record<string, unknown> | null } };
  const value = r.result?.value;
  if (!value) return reply;
  const out: Record<string, unknown> = { ...value };
  const inner = value.innerInstructions as UiInnerInstructions[] | null | undefined;
  out.innerInstructions = inner ? reHome(inner, twin) : inner;
  out.err = reIndexError(value.err, twin);
  const addresses = (config?.accounts as { addresses?: unknown } | undefined)?.addresses;
  if (Array.isArray(value.accounts) && Array.isArray(addresses)) {
    out.accounts = value.accounts.map((a: { lamports?: number } | null, i: number) =>
      a && addresses[i] === twin.payer && typeof a.lamports === 'number' ? { ...a, lamports: a.lamports + Number(twin.feeRefund) } : a,
    );
  }
  return { ...r, result: { ...r.result, value: out } };
}

/**
 * The original's inner instructions by the twin's indexes: a kept instruction's CPIs at its twin index; a moved
 * instruction itself (parsed from the original's message) and then its CPIs one level deeper, under the product
 * instruction, in the order they ran.
 */
function reHome(inner: readonly UiInnerInstructions[], twin: MainnetTwin): UiInnerInstructions[] {
  const byIndex = new Map(inner.map((g) => [g.index, g.instructions]));
  const message = twin.original.message;
  const keys = message.staticAccountKeys.map((k: PublicKey) => k.toBase58());
  const groups = new Map<number, UiInner[]>();
  const add = (index: number, ixs: readonly UiInner[]) => groups.set(index, [...(groups.get(index) ?? []), ...ixs]);
  twin.placement.forEach((place, i) => {
    const cpis = byIndex.get(i) ?? [];
    if (place !== 'inner') {
      add(place, cpis);
      return;
    }
    const ix = message.compiledInstructions[i]!;
    const self = parseUiInstruction({ programIdIndex: ix.programIdIndex, accounts: ix.accountKeyIndexes, data: ix.data }, keys, 2);
    add(twin.productIndex, [self, ...cpis.map((c) => ({ ...c, stackHeight: (c.stackHeight ?? 2) + 1 }))]);
  });
  return [...groups.entries()].filter(([, ixs]) => ixs.length > 0).sort(([a], [b]) => a - b).map(([index, instructions]) => ({ index, instructions }));
}

/** An InstructionError of the original at the index its instruction has in the twin (the product's, for a move). */
function reIndexError(err: unknown, twin: MainnetTwin): unknown {
  const e = err as { InstructionError?: [number, unknown] } | null;
  if (!e || !Array.isArray(e.InstructionError)) return err;
  const place = twin.placement[e.InstructionError[0]];
  return { InstructionError: [place === 'inner' || place === undefined ? twin.productIndex : place, e.InstructionError[1]] };
}

/** The base64 message of a base64 wire transaction: the signatures (a compact-u16 count, 64 bytes each) skipped. */
function messageOfWire(wire: string): string {
  const bytes = Buffer.from(wire, 'base64');
  let count = 0;
  let shift = 0;
  let at = 0;
  for (;;) {
    const b = bytes[at++]!;
    count |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
  }
  return bytes.subarray(at + count * 64).toString('base64');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
