// Acceptance (issue 21, item 3): a spawned keeper whose Ultra orders the venue routes through JupiterZ (RFQ) on the
// simulator, as the real service does: the market maker is the fee payer and signs after the wallet, at execute.
// Honest RFQ orders settle through the keeper with the wallet paying no fee; the same route served with every swap
// attack of the hostile-venue tests (ACCEPTANCE_ATTACKS and the split input) is refused by the pre-sign guard with
// the attack's rule, nothing signed, landed or stolen.
import { describe, expect, it, onTestFailed } from 'vitest';
import type { IntentRecord } from '../../src/store/intents.js';
import { ACCEPTANCE_ATTACKS, PRIMARY_RULE, STRANGER_LAMPORTS, startHostileVenue, type Attack } from '../helpers/hostileVenue.js';
import { airdrop, balances, BONK, control, ledger, openTokenAccount, JUP, SOL, USDC } from '../helpers/sim.js';
import { dcaSwapsConfig, spawnKeeper, useKeeperEnv, writeConfig, writeKeypair } from '../helpers/keeper.js';
import { isTerminalState, LEVEL, readIntents, stopKeeper } from '../helpers/e2e.js';
import { waitWhileRunning } from '../helpers/hostileKeeper.js';

const REFUSAL = 'pre-sign guard refused the transaction; nothing was signed';
const PREFIX = 'e2e-ultra-rfq';

interface Planned {
  id: string;
  inputMint: string;
  outputMint: string;
  amount: bigint;
  attack?: Attack;
}

/** Every attack on its own instance (told apart at the venue by the amount), and honest instances both ways. */
function instances(): Planned[] {
  const out: Planned[] = ACCEPTANCE_ATTACKS.map(({ label, attack }, i) => ({ id: `rfq-${label.replace(/\./g, '-')}`, inputMint: USDC, outputMint: SOL, amount: 5_000_000n + BigInt(i + 1) * 1_000n, attack }));
  out.push({ id: 'rfq-split-usdc', inputMint: USDC, outputMint: SOL, amount: 5_100_000n, attack: { kind: 'split-input', cut: 1n } });
  out.push({ id: 'rfq-split-sol', inputMint: SOL, outputMint: USDC, amount: 50_200_000n, attack: { kind: 'split-input', cut: 1n } });
  out.push({ id: 'rfq-honest-a', inputMint: USDC, outputMint: SOL, amount: 5_500_000n });
  out.push({ id: 'rfq-honest-b', inputMint: USDC, outputMint: SOL, amount: 5_600_000n });
  out.push({ id: 'rfq-honest-jup', inputMint: USDC, outputMint: JUP, amount: 5_700_000n });
  return out;
}

describe('a keeper whose Ultra orders go through JupiterZ, behind a hostile venue', () => {
  const world = useKeeperEnv('ultra-rfq-hostile');

  it('settles the honest RFQ orders, the maker paying every fee, and refuses every attack on that route by its rule', async () => {
    const { maker, gasWallet } = await control<{ maker: string; gasWallet: string }>(world.sim, '/ultra/route', { routers: ['jupiterz', 'metis'] });
    const venue = await startHostileVenue(world.sim);
    const { path: walletPath, keypair } = writeKeypair(world.dir, `${PREFIX}.wallet.json`);
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 5_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 1_000_000_000n);
    // An empty token account of another mint, for the close-account attack (the wallet pays to open it, here).
    openTokenAccount(world.sim, keypair, BONK);
    const startLamports = (await balances(world.sim, wallet)).lamports;
    const planned = instances();
    for (const p of planned) if (p.attack) venue.plan({ attack: p.attack, via: 'ultra', amount: p.amount, count: 1 });
    const yaml = dcaSwapsConfig({ venueUrl: venue.url, prefix: PREFIX, jobLock: '30s', instances: planned.map((p) => ({ ...p, via: 'ultra' as const, maxRuns: 1 })), extra: 'api:\n  ultra:\n    maxQuoteAge: 60s\n' });
    const k = spawnKeeper(['run', '--config', writeConfig(world.dir, yaml, `${PREFIX}.yaml`), '--wallet', walletPath, '--redis-url', world.redis.url]);
    let intents: IntentRecord[] = [];
    onTestFailed(() => {
      console.error(planned.map((p) => `${p.id}: ${JSON.stringify(intents.find((i) => i.instance === p.id)?.error ?? intents.find((i) => i.instance === p.id)?.state)}`).join('\n'));
      console.error(k.logs().filter((l) => Number(l.level) >= LEVEL.warn && l.msg !== REFUSAL).slice(-20).map((l) => JSON.stringify(l).slice(0, 400)).join('\n'));
    });
    try {
      intents = await waitWhileRunning(
        k,
        `an intent of each of the ${planned.length} instances, all terminal`,
        async () => {
          const all = await readIntents(world.redis.url, PREFIX);
          return planned.every((p) => all.some((i) => i.instance === p.id)) && all.every((i) => isTerminalState(i.state)) ? all : undefined;
        },
        180_000,
        500,
      );
    } finally {
      expect(await stopKeeper(k)).toBe(0);
      await venue.close();
    }

    const byInstance = new Map(intents.map((i) => [i.instance, i]));
    const records = venue.attacks();
    const refusals = k.logs().filter((l) => l.msg === REFUSAL);
    const walletSigs = venue.signatures({ signer: wallet });
    const problems: string[] = [];
    for (const p of planned.filter((x) => x.attack)) {
      const rule = PRIMARY_RULE[p.attack!.kind];
      const rec = byInstance.get(p.id)!;
      const served = records.filter((r) => r.amount === p.amount);
      if (served.length !== 1 || !served[0]!.served || (served[0]!.honest as { router?: string }).router !== 'jupiterz') problems.push(`${p.id}: not served once on the RFQ route (${served.map((r) => r.error ?? r.served).join(', ')})`);
      const attack = served[0];
      if (rec.state !== 'rejected' || rec.error?.code !== 'GUARD_REFUSED') problems.push(`${p.id}: ended ${rec.state} ${rec.error?.code ?? ''} ${rec.error?.message ?? ''}`);
      else if (!new RegExp(`(^|; )${rule}: `).test(rec.error.message)) problems.push(`${p.id}: refused without rule ${rule}: ${rec.error.message}`);
      const line = refusals.find((l) => l.intent === rec.id);
      if (!line || !((line.violations as Array<{ rule: string }> | undefined) ?? []).some((v) => v.rule === rule)) problems.push(`${p.id}: no refusal logged with ${rule}`);
      if (rec.signature !== null || rec.signedTx !== null || rec.signatures.length > 0) problems.push(`${p.id}: the ledger holds a signature`);
      if (attack && walletSigs.some((s) => s.message === attack.message || (attack.requestId !== null && s.requestId === attack.requestId))) problems.push(`${p.id}: the wallet signed it`);
      if (attack && attack.landed.length > 0) problems.push(`${p.id}: it landed as ${attack.landed.join(', ')}`);
    }
    expect(problems).toEqual([]);

    // The honest orders landed once each, through JupiterZ: the maker is the fee payer of what landed.
    const fair = planned.filter((p) => !p.attack).map((p) => byInstance.get(p.id)!);
    expect(fair.map((i) => `${i.instance}=${i.state}`)).toEqual(fair.map((i) => `${i.instance}=landed`));
    for (const i of fair) expect(i.quote).toMatchObject({ router: 'jupiterz', feePayer: maker });
    const settled = (await ledger(world.sim)).filter((t) => t.wallet === wallet && t.kind === 'ultra');
    expect(settled.map((t) => t.signature).sort()).toEqual(fair.map((i) => i.signature!).sort());
    for (const i of fair) {
      const landed = world.sim.ctx.state.venue.chain.signatureStatus(i.signature!);
      expect(landed?.landed?.tx?.message.staticAccountKeys[0]!.toBase58()).toBe(maker);
    }
    expect(walletSigs.filter((s) => !s.valid)).toEqual([]);

    // The wallet paid no fee and no rent (the gas wallet opened its JUP account): its SOL grew by exactly the SOL it
    // bought; nothing reached the stranger.
    const after = await balances(world.sim, wallet);
    const solBought = settled.filter((t) => t.outputMint === SOL).reduce((n, t) => n + BigInt(t.outputAmount!), 0n);
    expect(after.lamports).toBe(startLamports + solBought);
    expect(after.tokens[USDC]).toBe(1_000_000_000n - fair.reduce((n, i) => n + (i.intent.kind === 'swap' ? i.intent.amount : 0n), 0n));
    expect(gasWallet).not.toBe(maker);
    const s = await balances(world.sim, venue.stranger.publicKey.toBase58());
    expect(s.lamports).toBe(STRANGER_LAMPORTS);
    expect(Object.values(s.tokens).filter((a) => a > 0n)).toEqual([]);
  }, 300_000);
});
