import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { Feeds } from '../../src/execution/feeds.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { IntentStore } from '../../src/store/intents.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { fundedWallet, SOL, USDC } from '../helpers/sim.js';
import { useFeedWorld } from '../helpers/feedWorld.js';

// The wallet feed reads the chain while the executor may be sending: a transaction can settle before the balances are
// read and be recorded landed only later. Around its reads the feed asks the chain about the intents in flight, so
// the engine knows which of them the balances hold (an intent counted twice or not at all is traded again).
describe('the wallet feed and the intents in flight while it reads', { timeout: 60_000 }, () => {
  const world = useFeedWorld('feeds-sent');

  it('says which were settled before the reads (in them) and which not after (out of them)', async () => {
    const { sim, redis, prefix } = world;
    const rpc = new SolanaRpc(`${sim.url}/rpc`);
    const wallet = await fundedWallet(sim, 1_000_000_000n);
    const intents = new IntentStore(redis, prefix);
    const { blockhash } = await rpc.connection.getLatestBlockhash();
    const transfer = () => {
      const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: blockhash }).add(SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5_000_000 }));
      tx.sign(wallet);
      return tx;
    };
    // Sent and settled, its landing not recorded yet; and signed, sent as far as the ledger knows, but not settled.
    const settled = transfer();
    await rpc.connection.sendRawTransaction(settled.serialize());
    const pending = transfer();
    const record = async (id: string, tx: Transaction) => {
      await intents.create({ id, instance: 'i', strategy: 's@1', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 5_000_000n }, createdAt: Date.now(), deadline: Date.now() + 60_000 });
      for (const step of ['built', 'guarded', 'signed'] as const) await intents.move(id, null, step);
      await intents.move(id, null, 'submitted', { signature: bs58.encode(tx.signature!) });
    };
    await record('i.swap.settled', settled);
    await record('i.swap.pending', pending);

    const feeds = new Feeds({ jup: createJupiterClient({ baseUrl: sim.url, tier: 'off' }), rpc, snapshots: new SnapshotStore(redis, prefix), logger: silentLogger, sent: () => intents.sentSignatures() });
    const snapshot = await feeds.refreshWallet(wallet.publicKey.toBase58());
    expect(snapshot.sent).toEqual({ 'i.swap.settled': 'in', 'i.swap.pending': 'out' });
    // The balance holds the settled transfer (and its fee), not the other.
    expect(snapshot.lamports).toBe(1_000_000_000n - 5_000_000n - 5_000n);
    expect(snapshot.readAt).toBeGreaterThanOrEqual(snapshot.at);
  });

  it('still reads the wallet when it cannot ask about them (the engine then judges by the snapshot\'s times)', async () => {
    const { sim, redis, prefix } = world;
    const wallet = await fundedWallet(sim, 1_000_000_000n);
    const feeds = new Feeds({ jup: createJupiterClient({ baseUrl: sim.url, tier: 'off' }), rpc: new SolanaRpc(`${sim.url}/rpc`), snapshots: new SnapshotStore(redis, prefix), logger: silentLogger, sent: () => Promise.reject(new Error('Redis is gone')) });
    const snapshot = await feeds.refreshWallet(wallet.publicKey.toBase58());
    expect(snapshot.lamports).toBe(1_000_000_000n);
    expect(snapshot.sent).toBeUndefined();
  });
});
