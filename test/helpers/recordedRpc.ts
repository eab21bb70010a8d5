// A JSON-RPC node over one recorded transaction (corpus.ts), on an ephemeral port of 127.0.0.1 in the test's process:
// what the pre-sign guard asks of a node, answered from the recording at one fixed slot. getMultipleAccounts reads
// the states before (lookup tables as the program lays them out); simulateTransaction of that transaction, and no
// other, answers the recorded error, logs, units and inner instructions, with the state after of every account asked
// for. Batches are answered as batches. Anything else is an error, so a guard that asks for more shows up.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VersionedTransaction } from '@solana/web3.js';
import type { AccountSnapshot } from '../../src/solana/guardChanges.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { lookupTableData, type Recorded } from './corpus.js';

/** The slot every answer is at: one slot, so the guard's reads and simulation are of the same state. */
export const RECORDED_SLOT = 300_000_000;

/** A recorded node, started. */
export interface RecordedRpc {
  readonly url: string;
  /** A client of it, as the keeper's guard uses one. */
  readonly rpc: SolanaRpc;
  /** How often each method was called. */
  readonly calls: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Starts a node that answers for `recorded` (its transaction, states and simulation). */
export async function startRecordedRpc(recorded: Recorded): Promise<RecordedRpc> {
  const calls = new Map<string, number>();
  const message = Buffer.from(recorded.tx.message.serialize()).toString('base64');
  const tableAccounts = new Map([...recorded.tables].map(([address, addresses]) => [address, { lamports: 1_000_000n, owner: PROGRAM_IDS.addressLookupTable, data: lookupTableData(addresses) } satisfies AccountSnapshot]));
  const context = { slot: RECORDED_SLOT, apiVersion: '2.2.0' };

  const answer = (call: Call): unknown => {
    const method = typeof call.method === 'string' ? call.method : '';
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const params = Array.isArray(call.params) ? (call.params as unknown[]) : [];
    switch (method) {
      case 'getMultipleAccounts': {
        const keys = params[0] as string[];
        return { context, value: keys.map((k) => wire(tableAccounts.get(k) ?? recorded.pre.get(k) ?? null)) };
      }
      case 'getAccountInfo':
        return { context, value: wire(tableAccounts.get(params[0] as string) ?? recorded.pre.get(params[0] as string) ?? null) };
      case 'simulateTransaction': {
        const config = (params[1] ?? {}) as { encoding?: string; accounts?: { addresses?: string[] } };
        if (config.encoding !== 'base64') throw new RpcError(-32602, 'only base64 transactions are recorded');
        const asked = Buffer.from(VersionedTransaction.deserialize(Buffer.from(params[0] as string, 'base64')).message.serialize()).toString('base64');
        if (asked !== message) throw new RpcError(-32602, 'this node holds the recording of another transaction');
        const s = recorded.simulation;
        const accounts = s.err === null ? (config.accounts?.addresses ?? []).map((a) => wire(recorded.post.get(a) ?? null)) : null;
        return { context, value: { err: s.err, logs: s.logs, accounts, unitsConsumed: s.unitsConsumed, returnData: null, innerInstructions: s.innerInstructions } };
      }
      case 'getSlot':
        return RECORDED_SLOT;
      case 'getBlockHeight':
        return RECORDED_SLOT - 20_000_000;
      case 'getLatestBlockhash':
        return { context, value: { blockhash: recorded.tx.message.recentBlockhash, lastValidBlockHeight: RECORDED_SLOT - 20_000_000 + 150 } };
      default:
        throw new RpcError(-32601, `method ${method} is not recorded`);
    }
  };
  const reply = (call: Call): unknown => {
    try {
      return { jsonrpc: '2.0', id: call.id ?? null, result: answer(call) };
    } catch (err) {
      const e = err instanceof RpcError ? err : new RpcError(-32603, err instanceof Error ? err.message : String(err));
      return { jsonrpc: '2.0', id: call.id ?? null, error: { code: e.code, message: e.message } };
    }
  };

  const server: Server = createServer((req, res) => {
    readBody(req).then(
      (text) => {
        const body = JSON.parse(text) as Call | Call[];
        const out = Array.isArray(body) ? body.map(reply) : reply(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
      },
      (err: unknown) => res.writeHead(400, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    rpc: new SolanaRpc(url),
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** An account as a node answers it in base64 encoding. */
function wire(a: AccountSnapshot | null): unknown {
  if (!a) return null;
  return { lamports: Number(a.lamports), owner: a.owner, data: [Buffer.from(a.data).toString('base64'), 'base64'], executable: a.executable ?? false, rentEpoch: 0, space: a.data.length };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
