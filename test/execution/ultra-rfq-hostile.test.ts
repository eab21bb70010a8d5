// Every swap attack of the hostile venue (test/helpers/hostileAttacks.ts, ACCEPTANCE_ATTACKS and the split input),
// served on Ultra's JupiterZ route (test/helpers/hostileRfq.ts: the market maker is the fee payer and signs after the
// wallet), is refused by the executor's guard with the attack's rule, nothing signed; an honest RFQ order served
// through the same venue settles. The keeper's executor runs in-process with its real builder and guard, its venue
// the hostile proxy in front of the simulator.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor } from '../../src/execution/executor.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { intentSchema, type Intent } from '../../src/sdk/intents.js';
import { ACCEPTANCE_ATTACKS, PRIMARY_RULE, STRANGER_LAMPORTS, startHostileVenue, type Attack, type HostileVenue } from '../helpers/hostileVenue.js';
import { balances, control, ledger, openTokenAccount, SOL, USDC } from '../helpers/sim.js';
import { executorFor, marketOf, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';

const swap = (inputMint: string, outputMint: string, amount: bigint): Intent => intentSchema.parse({ kind: 'swap', via: 'ultra', inputMint, outputMint, amount });

describe('attacks of a hostile venue on Ultra\'s JupiterZ route', { timeout: 180_000 }, () => {
  const world = useExecutorWorld('exec-ultra-rfq-hostile');
  let venue: HostileVenue;
  let s: WalletExecutor;
  let executor: Executor;
  let maker: string;

  beforeAll(async () => {
    ({ maker } = await control<{ maker: string }>(world.sim, '/ultra/route', { routers: ['jupiterz', 'metis'] }));
    venue = await startHostileVenue(world.sim);
    const jup = createJupiterClient({ baseUrl: venue.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    s = await executorFor(world, { lamports: 5_000_000_000n, tokens: [[USDC, 1_000_000_000n]], market: await marketOf(world, [USDC, SOL]) });
    // An empty token account of another mint, for the close-account attack.
    openTokenAccount(world.sim, s.keypair, 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN');
    executor = new Executor({ ...s.deps, jup, build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc: world.rpc, wallet: s.wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, signal }) });
  });
  afterAll(async () => {
    await venue?.close();
  });

  const run = async (intent: Intent) => {
    const id = `t.swap.${randomUUID().slice(0, 12)}`;
    await s.store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + 86_400_000 });
    const result = await executor.execute(id);
    return { result, rec: (await s.store.get(id))! };
  };

  const attacks: Array<{ label: string; attack: Attack; inputMint: string; outputMint: string }> = [
    ...ACCEPTANCE_ATTACKS.map((a) => ({ ...a, inputMint: USDC, outputMint: SOL })),
    { label: 'split-usdc-input', attack: { kind: 'split-input', cut: 1n }, inputMint: USDC, outputMint: SOL },
    { label: 'split-sol-input', attack: { kind: 'split-input', cut: 1n }, inputMint: SOL, outputMint: USDC },
  ];

  it.each(attacks.map((a, i) => ({ ...a, amount: (a.inputMint === SOL ? 50_000_000n : 5_000_000n) + BigInt(i + 1) * 1_000n })))('refuses $label by its rule, signing nothing', async ({ attack, inputMint, outputMint, amount }) => {
    venue.plan({ attack, via: 'ultra', amount, count: 1 });
    const { result, rec } = await run(swap(inputMint, outputMint, amount));
    const served = venue.attacks().find((r) => r.amount === amount)!;
    expect(served.error).toBeUndefined();
    expect(served.served).toBe(true);
    // The attack was served on the RFQ route: the maker is the fee payer of what the keeper was asked to sign.
    expect((served.honest as { router?: string }).router).toBe('jupiterz');
    expect(result).toEqual({ state: 'rejected' });
    expect(rec.error?.code).toBe('GUARD_REFUSED');
    expect(rec.error?.rule?.split(',')).toContain(PRIMARY_RULE[attack.kind]);
    expect(rec.signature).toBeNull();
    expect(venue.signatures({ signer: s.wallet.address }).filter((x) => x.requestId === served.requestId)).toEqual([]);
    expect(served.landed).toEqual([]);
  });

  it('settles an honest RFQ order served by the same venue, and nothing reached the stranger', async () => {
    const { result, rec } = await run(swap(USDC, SOL, 7_777_000n));
    expect(result).toEqual({ state: 'landed' });
    expect(rec.quote).toMatchObject({ router: 'jupiterz', feePayer: maker });
    expect((await ledger(world.sim)).filter((t) => t.wallet === s.wallet.address && t.kind === 'ultra').map((t) => t.signature)).toEqual([rec.signature]);
    const stranger = await balances(world.sim, venue.stranger.publicKey.toBase58());
    expect(stranger.lamports).toBe(STRANGER_LAMPORTS);
    expect(Object.values(stranger.tokens).filter((a) => a > 0n)).toEqual([]);
    expect((await balances(world.sim, s.wallet.address)).tokens[USDC]).toBe(1_000_000_000n - 7_777_000n);
  });
});
