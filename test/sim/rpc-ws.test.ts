import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Connection, Keypair, LAMPORTS_PER_SOL, type AccountInfo, type Context } from '@solana/web3.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { startSimulator } from '../../src/sim/server.js';
import { startRpcWebSocketServer } from '../../src/sim/http/rpcWs.js';
import { control } from '../helpers/sim.js';

/**
 * Lets web3.js finish what it does after a confirmation resolves (confirmTransaction leaves a status check in
 * flight), so closing the simulator does not cut it.
 */
function settle(): Promise<void> {
  return new Promise((r) => setTimeout(r, 150));
}

/** Repeats `act` until `done` settles: a new subscription may still be on its way to the server when `act` runs. */
async function repeatUntil<T>(done: Promise<T>, act: () => Promise<unknown>): Promise<T> {
  let settled = false;
  void done.finally(() => (settled = true)).catch(() => undefined);
  while (!settled) {
    await act();
    await Promise.race([done, new Promise((r) => setTimeout(r, 300))]);
  }
  return done;
}

function wsUrlOf(sim: RunningSimulator): string {
  return sim.rpcUrl.replace(/^http/, 'ws');
}

/** Resolves with the first value passed to the callback it hands to `subscribe`. */
function first<T>(subscribe: (cb: (value: T) => void) => void, timeoutMs = 5_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no notification')), timeoutMs);
    subscribe((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** A frame from the server: an answer or a notification. */
interface WsMessage {
  id?: number | null;
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: { result: unknown; subscription: number };
}

/** A raw PubSub client: sends frames and collects what comes back. */
async function rawClient(url: string) {
  const ws = new WebSocket(url);
  const messages: WsMessage[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data: Buffer) => {
    messages.push(JSON.parse(data.toString('utf8')) as WsMessage);
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
  return {
    send: (body: unknown) => ws.send(typeof body === 'string' ? body : JSON.stringify(body)),
    async next(n: number): Promise<WsMessage[]> {
      while (messages.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return messages.splice(0, n);
    },
    close: () => ws.close(),
  };
}

describe('the simulator PubSub WebSocket', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, clockSpeed: 0 });
  });
  afterAll(async () => {
    await settle();
    await sim.close();
  });

  for (const [name, wsEndpoint] of [['on RPC port + 1, where web3.js looks by itself', undefined], ['at /rpc on the same port', 'same']] as const) {
    describe(`when web3.js connects ${name}`, () => {
      let conn: Connection;
      beforeAll(() => {
        conn = new Connection(sim.rpcUrl, { commitment: 'confirmed', wsEndpoint: wsEndpoint ? wsUrlOf(sim) : undefined });
      });

      it('notifies an account change and the signature of the transaction that made it', async () => {
        const wallet = Keypair.generate();
        let changeId = 0;
        const change = first<AccountInfo<Buffer>>((cb) => {
          changeId = conn.onAccountChange(wallet.publicKey, (info) => cb(info), { commitment: 'confirmed' });
        });
        const info = await repeatUntil(change, async () => {
          const latest = await conn.getLatestBlockhash();
          const signature = await conn.requestAirdrop(wallet.publicKey, LAMPORTS_PER_SOL);
          const confirmed = await conn.confirmTransaction({ signature, ...latest });
          expect(confirmed.value.err).toBeNull();
        });
        expect(info.lamports).toBeGreaterThan(0);
        expect(info.lamports % LAMPORTS_PER_SOL).toBe(0);
        await conn.removeAccountChangeListener(changeId);
      });

      it('notifies new slots as the clock advances', async () => {
        let id = 0;
        const before = await conn.getSlot();
        const slot = first<number>((cb) => {
          id = conn.onSlotChange((info) => cb(info.slot));
        });
        const notified = await repeatUntil(slot, () => control(sim, '/clock', { advanceMs: 4_000 }));
        expect(notified).toBeGreaterThanOrEqual(before + 10);
        await conn.removeSlotChangeListener(id);
      });

      it('notifies a finalized signature only once it is 32 slots deep', async () => {
        const signature = await conn.requestAirdrop(Keypair.generate().publicKey, LAMPORTS_PER_SOL);
        let notified = false;
        const done = first<[unknown, Context]>((cb) => conn.onSignature(signature, (result, context) => cb([result, context]), 'finalized'));
        void done.then(() => (notified = true));
        await new Promise((r) => setTimeout(r, 150));
        expect(notified).toBe(false);
        await control(sim, '/clock', { advanceMs: 32 * 400 });
        const [result] = await done;
        expect(result).toEqual({ err: null });
      });
    });
  }

  describe('when spoken to directly', () => {
    it('answers subscriptions and unsubscriptions as a node does, and ignores notifications', async () => {
      const client = await rawClient(wsUrlOf(sim));
      const conn = new Connection(sim.rpcUrl, 'confirmed');
      const signature = await conn.requestAirdrop(Keypair.generate().publicKey, 1_000_000);

      client.send({ jsonrpc: '2.0', method: 'ping', params: null });
      client.send({ jsonrpc: '2.0', id: 1, method: 'signatureSubscribe', params: [signature, { commitment: 'confirmed' }] });
      const [ack, note] = await client.next(2);
      expect(ack).toMatchObject({ id: 1, result: expect.any(Number) });
      expect(note).toMatchObject({ method: 'signatureNotification', params: { subscription: ack!.result, result: { value: { err: null } } } });

      client.send({ jsonrpc: '2.0', id: 2, method: 'signatureUnsubscribe', params: [ack!.result] });
      client.send({ jsonrpc: '2.0', id: 3, method: 'accountUnsubscribe', params: [987_654] });
      client.send('{ not json');
      client.send({ jsonrpc: '2.0', id: 4, method: 'blockSubscribe', params: [] });
      client.send({ jsonrpc: '2.0', id: 5, method: 'accountSubscribe', params: ['nope'] });
      const answers = await client.next(5);
      expect(answers[0]).toMatchObject({ id: 2, result: true });
      expect(answers[1]).toMatchObject({ id: 3, error: { code: -32602, message: 'Invalid subscription id.' } });
      expect(answers[2]).toMatchObject({ id: null, error: { code: -32700 } });
      expect(answers[3]).toMatchObject({ id: 4, error: { code: -32601 } });
      expect(answers[4]).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringContaining('pubkey') } });
      client.close();
    });

    it('refuses a second server on a port already taken', async () => {
      const wsPort = Number(new URL(sim.url).port) + 1;
      await expect(startRpcWebSocketServer(wsPort, '127.0.0.1', sim.ctx)).rejects.toThrow(/EADDRINUSE/);
    });
  });
});

describe('a simulator whose port + 1 is taken', () => {
  let blocker: Server;
  let sim: RunningSimulator | undefined;

  beforeAll(async () => {
    // Find a port whose neighbour can be held, then start the simulator on it.
    for (let attempt = 0; attempt < 10 && !sim; attempt += 1) {
      const probe = createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
      const port = (probe.address() as AddressInfo).port;
      await new Promise<void>((r) => probe.close(() => r()));
      blocker = createServer();
      const held = await new Promise<boolean>((r) => blocker.once('error', () => r(false)).listen(port + 1, '127.0.0.1', () => r(true)));
      if (!held) continue;
      sim = await startSimulator({ seed: 22, clockSpeed: 0, port }).catch(() => undefined);
      if (!sim) await new Promise<void>((r) => blocker.close(() => r()));
    }
  });
  afterAll(async () => {
    await settle();
    await sim?.close();
    await new Promise<void>((r) => blocker.close(() => r()));
  });

  it('still serves PubSub at /rpc, and closes without leaving a server behind', async () => {
    expect(sim).toBeDefined();
    const conn = new Connection(sim!.rpcUrl, { commitment: 'confirmed', wsEndpoint: wsUrlOf(sim!) });
    const latest = await conn.getLatestBlockhash();
    const signature = await conn.requestAirdrop(Keypair.generate().publicKey, LAMPORTS_PER_SOL);
    expect((await conn.confirmTransaction({ signature, ...latest })).value.err).toBeNull();
  });
});

describe('closing the simulator', () => {
  it('leaves no listening server or PubSub timer behind, even with a subscriber connected', async () => {
    const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    await settle();
    const before = servers();
    const sim = await startSimulator({ seed: 23, clockSpeed: 1 });
    await settle();
    // The HTTP server, plus the PubSub listener on port + 1 unless another process (a simulator in a parallel test
    // file) already holds that port: that listener is best effort, like a validator's.
    const running = servers() - before;
    expect(running).toBeGreaterThanOrEqual(1);
    expect(running).toBeLessThanOrEqual(2);
    const client = await rawClient(wsUrlOf(sim));
    client.send({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' });
    await client.next(1);
    await sim.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(servers()).toBe(before);
  });
});
