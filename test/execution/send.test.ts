import { describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { inviteCodeFor } from '../../src/execution/sendInvite.js';
import { deriveInvitePda, inviteKeypairFromCode } from '../../src/jupiter/send/inviteCode.js';
import type { Intent } from '../../src/sdk/intents.js';
import { balances, control, ledger, SOL, USDC } from '../helpers/sim.js';
import { executorFor, useExecutorWorld } from '../helpers/executorKit.js';

// Send and clawback intents carried out by the real Executor (builder, guard with the engine's own policy,
// signing, RPC submit, confirmation) against the simulator, with a real Redis intent ledger.
describe('send intents through the executor', { timeout: 60_000 }, () => {
  const world = useExecutorWorld('send');

  /** An executor for a fresh wallet, keeping every guard report and every notice it shows. */
  async function setup(tokens: Array<[string, bigint]>) {
    const s = await executorFor(world, { lamports: 1_000_000_000n, tokens });
    const run = async (intent: Intent) => {
      const r = await s.run(intent);
      return { id: r.id, result: r.result, record: () => s.store.get(r.id) };
    };
    return { keypair: s.keypair, wallet: s.wallet, run, reports: s.reports, notices: s.notices };
  }

  it('lands a USDC send that the guard accepts, shows its code once, and the code claims it', async () => {
    const s = await setup([[USDC, 30_000_000n]]);
    const sent = await s.run({ kind: 'send', mint: USDC, amount: 12_000_000n });
    expect(sent.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[]]);
    const code = inviteCodeFor(s.wallet, sent.id);
    expect(s.notices).toEqual([expect.stringContaining(`invite code ${code}`)]);
    const pda = deriveInvitePda(inviteKeypairFromCode(code).publicKey).toBase58();
    const [pending] = (await world.jup.send.getPendingInvites({ address: s.wallet.address })).invites;
    expect(pending).toMatchObject({ invitePda: pda, amount: 12_000_000n, creationTx: (await sent.record())!.signature });
    expect((await balances(world.sim, s.keypair)).tokens[USDC]).toBe(18_000_000n);

    const receiver = Keypair.generate().publicKey;
    await control(world.sim, '/send/claim', { code, receiver: receiver.toBase58() });
    expect((await balances(world.sim, receiver.toBase58())).tokens[USDC]).toBe(12_000_000n);
    expect((await world.jup.send.getInviteHistory({ address: s.wallet.address })).invites[0]).toMatchObject({ invitePda: pda, action: 'claimed', receiver: receiver.toBase58() });
  });

  it('lands a SOL send and its clawback, which returns every lamport of the invite', async () => {
    const s = await setup([]);
    const sent = await s.run({ kind: 'send', mint: SOL, amount: 300_000_000n });
    expect(sent.result).toEqual({ state: 'landed' });
    const pda = deriveInvitePda(inviteKeypairFromCode(inviteCodeFor(s.wallet, sent.id)).publicKey).toBase58();
    const before = (await balances(world.sim, s.keypair)).lamports;

    const back = await s.run({ kind: 'send.clawback', invitePda: pda });
    expect(back.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[], []]);
    const signature = (await back.record())!.signature!;
    const fee = world.sim.ctx.state.venue.chain.signatureStatus(signature)!.landed!.fee;
    expect((await balances(world.sim, s.keypair)).lamports).toBe(before + 300_000_000n - fee);
    expect((await ledger(world.sim)).find((t) => t.signature === signature)).toMatchObject({ kind: 'send-clawback', wallet: s.wallet.address, outputAmount: '300000000' });
    expect((await world.jup.send.getPendingInvites({ address: s.wallet.address })).invites).toEqual([]);
    expect((await world.jup.send.getInviteHistory({ address: s.wallet.address })).invites[0]).toMatchObject({ invitePda: pda, action: 'clawback' });
  });

  it('fails a clawback of an invite that was already claimed, without signing anything', async () => {
    const s = await setup([[USDC, 5_000_000n]]);
    const sent = await s.run({ kind: 'send', mint: USDC, amount: 5_000_000n });
    const code = inviteCodeFor(s.wallet, sent.id);
    await control(world.sim, '/send/claim', { code, receiver: Keypair.generate().publicKey.toBase58() });
    const back = await s.run({ kind: 'send.clawback', invitePda: deriveInvitePda(inviteKeypairFromCode(code).publicKey).toBase58() });
    expect(back.result.state).toBe('failed');
    expect((await back.record())!.signature ?? null).toBeNull();
  });
});
