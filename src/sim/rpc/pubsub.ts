import { createHash } from 'node:crypto';
import { SystemProgram, type AccountInfo, type PublicKey } from '@solana/web3.js';
import { z } from 'zod';
import type { SimChain } from '../chain/chain.js';
import { FINALITY_SLOTS } from '../chain/chain.js';
import type { Logger } from '../../lib/logger.js';
import type { Venue } from '../venue.js';
import { encodeAccount } from './accounts.js';
import { dispatchJsonRpc, method, RpcCode, RpcError, serialize, type MethodTable } from './jsonrpc.js';
import { accountEncodingParam, commitmentParam, pubkeyParam, signatureParam, withContext, type Commitment, type AccountEncoding } from './params.js';

/** Real ms between checks of the clock while anyone is subscribed (slot notifications, finality, resets). */
const TICK_MS = 50;

/** Where a PubSub connection's frames go. */
export interface PubSubPeer {
  send(text: string): void;
}

/** One connected PubSub client, as the transport drives it. */
export interface PubSubConnection {
  /** Handles one text frame (a JSON-RPC request or batch). */
  receive(text: string): void;
  /** Drops the client's subscriptions. */
  close(): void;
}

/** A subscription; `acked` once the client has its id (no notification may come before that). */
type Sub = { acked: boolean } & (
  | { kind: 'signature'; signature: string; commitment: Commitment }
  | { kind: 'account'; address: PublicKey; encoding: AccountEncoding; last: string }
  | { kind: 'slot' }
);

interface Client {
  peer: PubSubPeer;
  subs: Map<number, Sub>;
  /** Every id issued to this client; unsubscribing one the server already disposed of answers true. */
  issued: Set<number>;
  /** Frames are answered one after the other, in order. */
  queue: Promise<void>;
}

const subscribeConfig = z.looseObject({ commitment: commitmentParam.optional(), enableReceivedNotification: z.boolean().optional() }).nullish();
const accountConfig = z.looseObject({ commitment: commitmentParam.optional(), encoding: accountEncodingParam.optional() }).nullish();
const subscriptionId = z.number().int().nonnegative();

/**
 * What the hub reads of the simulator (its routes' SimContext): the venue of the current state, read at each use
 * since a reset replaces it. Named here so that the RPC does not import the HTTP layer that serves it.
 */
export interface PubSubContext {
  readonly state: { readonly venue: Venue };
  readonly logger: Logger;
}

/**
 * The Solana PubSub API of the simulator: signature, account and slot subscriptions. It hears the chain's change
 * hook (settlements are synchronous, so a notification follows the settlement at once) and, while anyone is
 * subscribed, ticks to follow the clock: new slots, finality, and a reset that replaced the chain.
 */
export class PubSubHub {
  private readonly clients = new Set<Client>();
  private readonly methods: MethodTable<Client>;
  private nextId = 0;
  private timer: NodeJS.Timeout | undefined;
  private chain: SimChain | undefined;
  private detach: (() => void) | undefined;
  private lastSlot = -1n;

  constructor(private readonly ctx: PubSubContext) {
    this.methods = this.buildMethods();
  }

  /** Registers a client; the transport feeds it frames and closes it when the socket goes. */
  connect(peer: PubSubPeer): PubSubConnection {
    const client: Client = { peer, subs: new Map(), issued: new Set(), queue: Promise.resolve() };
    this.clients.add(client);
    return {
      receive: (text) => {
        client.queue = client.queue
          .then(() => this.receive(client, text))
          .catch((err: unknown) => this.ctx.logger.error({ err }, 'rpc pubsub message failed'));
      },
      close: () => {
        this.clients.delete(client);
        this.schedule();
      },
    };
  }

  /** Stops the clock and leaves the chain; clients are closed by their transport. */
  close(): void {
    this.clients.clear();
    this.schedule();
    this.detach?.();
    this.detach = undefined;
    this.chain = undefined;
  }

  private async receive(client: Client, text: string): Promise<void> {
    this.attach();
    const answer = await dispatchJsonRpc(text, this.methods, client, {
      onInternalError: (err, name) => this.ctx.logger.error({ err, method: name }, 'rpc pubsub method failed'),
    });
    if (answer !== undefined) client.peer.send(answer);
    for (const sub of client.subs.values()) sub.acked = true;
    // A signature already settled is notified right after the subscription's id, as a node does.
    this.checkSignatures(client);
    this.checkAccounts(client);
    this.schedule();
  }

  private buildMethods(): MethodTable<Client> {
    const add = (client: Client, sub: DistributiveOmit<Sub, 'acked'>): number => {
      const id = this.nextId;
      this.nextId += 1;
      client.subs.set(id, { ...sub, acked: false });
      client.issued.add(id);
      return id;
    };
    const remove = (kind: Sub['kind']) =>
      method([['subscriptionId', subscriptionId]], ([id], client: Client) => {
        const sub = client.subs.get(id);
        if (sub?.kind === kind) return client.subs.delete(id);
        if (!sub && client.issued.has(id)) return true;
        throw new RpcError(RpcCode.invalidParams, 'Invalid subscription id.');
      });
    return {
      signatureSubscribe: method([['signature', signatureParam], ['config', subscribeConfig]], ([signature, config], client: Client) =>
        add(client, { kind: 'signature', signature, commitment: config?.commitment ?? 'finalized' }),
      ),
      signatureUnsubscribe: remove('signature'),
      accountSubscribe: method([['pubkey', pubkeyParam], ['config', accountConfig]], ([address, config], client: Client) =>
        add(client, { kind: 'account', address, encoding: config?.encoding ?? 'base64', last: this.fingerprint(address) }),
      ),
      accountUnsubscribe: remove('account'),
      slotSubscribe: method([], (_args, client: Client) => add(client, { kind: 'slot' })),
      slotUnsubscribe: remove('slot'),
    };
  }

  /** Follows the current chain: a reset replaces it, and whatever was watched is compared against the new one. */
  private attach(): void {
    const chain = this.ctx.state.venue.chain;
    if (chain === this.chain) return;
    this.detach?.();
    this.chain = chain;
    this.detach = chain.onChange(() => this.onChainChange());
    if (this.clients.size > 0) this.onChainChange();
  }

  private onChainChange(): void {
    try {
      for (const client of this.clients) {
        this.checkSignatures(client);
        this.checkAccounts(client);
      }
    } catch (err) {
      this.ctx.logger.error({ err }, 'rpc pubsub notification failed');
    }
  }

  private tick(): void {
    try {
      this.attach();
      const slot = this.ctx.state.venue.clock.slot();
      if (slot === this.lastSlot) return;
      this.lastSlot = slot;
      for (const client of this.clients) {
        for (const [id, sub] of client.subs) {
          if (sub.kind === 'slot' && sub.acked) notify(client, 'slotNotification', id, { parent: slot - 1n, root: slot - FINALITY_SLOTS, slot });
        }
        this.checkSignatures(client);
      }
    } catch (err) {
      this.ctx.logger.error({ err }, 'rpc pubsub tick failed');
    }
  }

  private checkSignatures(client: Client): void {
    const chain = this.ctx.state.venue.chain;
    for (const [id, sub] of client.subs) {
      if (sub.kind !== 'signature' || !sub.acked) continue;
      const status = chain.signatureStatus(sub.signature);
      if (!status || (sub.commitment === 'finalized' && status.confirmationStatus !== 'finalized')) continue;
      client.subs.delete(id);
      notify(client, 'signatureNotification', id, withContext(this.ctx.state.venue.clock.slot(), { err: status.err }));
    }
  }

  private checkAccounts(client: Client): void {
    const venue = this.ctx.state.venue;
    for (const [id, sub] of client.subs) {
      if (sub.kind !== 'account' || !sub.acked) continue;
      const now = this.fingerprint(sub.address);
      if (now === sub.last) continue;
      sub.last = now;
      const acc = venue.chain.account(sub.address) ?? closedAccount();
      notify(client, 'accountNotification', id, withContext(venue.clock.slot(), encodeAccount(venue.chain, acc, sub.encoding)));
    }
  }

  private fingerprint(address: PublicKey): string {
    const acc = this.ctx.state.venue.chain.account(address);
    if (!acc) return 'none';
    const data = createHash('sha256').update(acc.data).digest('base64');
    return `${acc.lamports}:${acc.owner.toBase58()}:${acc.executable}:${data}`;
  }

  /** Runs the tick while anyone is subscribed; stops it otherwise, so an idle hub holds no timer. */
  private schedule(): void {
    const busy = [...this.clients].some((c) => c.subs.size > 0);
    if (busy && !this.timer) {
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
    } else if (!busy && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function notify(client: Client, name: string, subscription: number, result: unknown): void {
  client.peer.send(serialize({ jsonrpc: '2.0', method: name, params: { result, subscription } }));
}

/** How a node shows an account that no longer exists. */
function closedAccount(): AccountInfo<Uint8Array> {
  return { lamports: 0, data: new Uint8Array(0), owner: SystemProgram.programId, executable: false, rentEpoch: 0 };
}
