import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor } from '../../src/execution/executor.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { inviteCodeFor } from '../../src/execution/sendInvite.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { deriveInvitePda, inviteKeypairFromCode } from '../../src/jupiter/send/inviteCode.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { Intent } from '../../src/sdk/intents.js';
import type { GuardReport } from '../../src/solana/guard.js';
import { guardTransaction } from '../../src/solana/guard.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { IntentStore } from '../../src/store/intents.js';
import { balances, control, fundedWallet, ledger, startTestSim, SOL, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DAY = 86_400_000;

// Send and clawback intents carried out by the real Executor (builder, guard with the engine's own policy,
// signing, RPC submit, confirmation) against the simulator, with a real Redis intent ledger.
describe('send intents through the executor', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let redis: Redis;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  let coSigners: string[];
  const prefix = `send-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    sim = await startTestSim();
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
    coSigners = (await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners;
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await sim.close();
  });

  /** An executor for a fresh wallet, keeping every guard report and every notice it shows. */
  async function setup(tokens: Array<[string, bigint]>) {
    const keypair = await fundedWallet(sim, 1_000_000_000n, tokens);
    const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));
    const store = new IntentStore(redis, prefix);
    const reports: GuardReport[] = [];
    const notices: string[] = [];
    const executor = new Executor({
      store,
      jup,
      rpc,
      wallet,
      killSwitch: () => Promise.resolve(null),
      logger: silentLogger,
      maxAttempts: 2,
      notice: (text) => notices.push(text),
      build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc, wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, signal }),
      guard: async (intent, built) => {
        const policy = guardPolicyFor(intent, built, { wallet: wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners, market: undefined, maxPriceAgeMs: 60_000, now: Date.now() });
        const report = await guardTransaction(built.tx, policy, rpc);
        reports.push(report);
        return report;
      },
    });
    const run = async (intent: Intent) => {
      const id = `t.${intent.kind}.${randomUUID().slice(0, 12)}`;
      await store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + DAY });
      return { id, result: await executor.execute(id), record: () => store.get(id) };
    };
    return { keypair, wallet, run, reports, notices };
  }

  it('lands a USDC send that the guard accepts, shows its code once, and the code claims it', async () => {
    const s = await setup([[USDC, 30_000_000n]]);
    const sent = await s.run({ kind: 'send', mint: USDC, amount: 12_000_000n });
    expect(sent.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[]]);
    const code = inviteCodeFor(s.wallet, sent.id);
    expect(s.notices).toEqual([expect.stringContaining(`invite code ${code}`)]);
    const pda = deriveInvitePda(inviteKeypairFromCode(code).publicKey).toBase58();
    const [pending] = (await jup.send.getPendingInvites({ address: s.wallet.address })).invites;
    expect(pending).toMatchObject({ invitePda: pda, amount: 12_000_000n, creationTx: (await sent.record())!.signature });
    expect((await balances(sim, s.keypair)).tokens[USDC]).toBe(18_000_000n);

    const receiver = Keypair.generate().publicKey;
    await control(sim, '/send/claim', { code, receiver: receiver.toBase58() });
    expect((await balances(sim, receiver.toBase58())).tokens[USDC]).toBe(12_000_000n);
    expect((await jup.send.getInviteHistory({ address: s.wallet.address })).invites[0]).toMatchObject({ invitePda: pda, action: 'claimed', receiver: receiver.toBase58() });
  });

  it('lands a SOL send and its clawback, which returns every lamport of the invite', async () => {
    const s = await setup([]);
    const sent = await s.run({ kind: 'send', mint: SOL, amount: 300_000_000n });
    expect(sent.result).toEqual({ state: 'landed' });
    const pda = deriveInvitePda(inviteKeypairFromCode(inviteCodeFor(s.wallet, sent.id)).publicKey).toBase58();
    const before = (await balances(sim, s.keypair)).lamports;

    const back = await s.run({ kind: 'send.clawback', invitePda: pda });
    expect(back.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[], []]);
    const signature = (await back.record())!.signature!;
    const fee = sim.ctx.state.venue.chain.signatureStatus(signature)!.landed!.fee;
    expect((await balances(sim, s.keypair)).lamports).toBe(before + 300_000_000n - fee);
    expect((await ledger(sim)).find((t) => t.signature === signature)).toMatchObject({ kind: 'send-clawback', wallet: s.wallet.address, outputAmount: '300000000' });
    expect((await jup.send.getPendingInvites({ address: s.wallet.address })).invites).toEqual([]);
    expect((await jup.send.getInviteHistory({ address: s.wallet.address })).invites[0]).toMatchObject({ invitePda: pda, action: 'clawback' });
  });

  it('fails a clawback of an invite that was already claimed, without signing anything', async () => {
    const s = await setup([[USDC, 5_000_000n]]);
    const sent = await s.run({ kind: 'send', mint: USDC, amount: 5_000_000n });
    const code = inviteCodeFor(s.wallet, sent.id);
    await control(sim, '/send/claim', { code, receiver: Keypair.generate().publicKey.toBase58() });
    const back = await s.run({ kind: 'send.clawback', invitePda: deriveInvitePda(inviteKeypairFromCode(code).publicKey).toBase58() });
    expect(back.result.state).toBe('failed');
    expect((await back.record())!.signature ?? null).toBeNull();
  });
});
