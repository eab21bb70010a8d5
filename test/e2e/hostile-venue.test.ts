// Acceptance (issue 7): one keeper run behind a hostile venue. Every attack is served, for Ultra and for the Metis
// quote/swap pair, to its own strategy instance (told apart by the input amount), while other instances get honest
// orders. Each attacked intent must end rejected by the pre-sign guard, naming the attack's rule, with nothing
// signed (not in the ledger, not at the venue, not settled, the stranger no richer); the honest ones settle.
// A second run serves a subtler theft: the intent's own payment split between the counterparty and a stranger.
import { describe, expect, it, onTestFailed } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import type { IntentRecord } from '../../src/store/intents.js';
import { readTokenAccount } from '../../src/solana/guardChanges.js';
import { ACCEPTANCE_ATTACKS, PRIMARY_RULE, STRANGER_LAMPORTS, startHostileVenue, type Attack, type AttackRecord, type Flow } from '../helpers/hostileVenue.js';
import { airdrop, balances, ledger, openTokenAccount, JUP, SOL, USDC } from '../helpers/sim.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair, type KeeperProcess, type TestRedis } from '../helpers/keeper.js';
import { isTerminalState, LEVEL, readIntents, stopKeeper } from '../helpers/e2e.js';
import { hostileConfig, waitWhileRunning } from '../helpers/hostileKeeper.js';

const REFUSAL = 'pre-sign guard refused the transaction; nothing was signed';

/** One strategy instance of the run: what it swaps and what it is served. */
interface Planned {
  id: string;
  via: Flow;
  inputMint: string;
  outputMint: string;
  amount: bigint;
  label: string;
  attack?: Attack;
}

/** Two honest USDC->SOL instances per flow, amounts `base` + 500,000 and + 600,000. */
function honest(via: Flow, base: bigint): Planned[] {
  return ['a', 'b'].map((x, i) => ({ id: `${via}-honest-${x}`, via, inputMint: USDC, outputMint: SOL, amount: base + 500_000n + BigInt(i) * 100_000n, label: 'honest' }));
}

/** Every attack of the issue's list for both flows (USDC->SOL), and honest instances; amounts tell them apart at the venue. */
function acceptanceInstances(): Planned[] {
  const out: Planned[] = [];
  for (const via of ['ultra', 'metis'] as const) {
    const base = via === 'ultra' ? 5_000_000n : 6_000_000n;
    ACCEPTANCE_ATTACKS.forEach(({ label, attack }, i) => out.push({ id: `${via}-${label.replace(/\./g, '-')}`, via, inputMint: USDC, outputMint: SOL, amount: base + BigInt(i + 1) * 1_000n, label, attack }));
    out.push(...honest(via, base));
  }
  return out;
}

/** The intent's own payment split between the counterparty and the stranger (1 base unit), USDC->SOL and SOL->USDC. */
function splitInstances(): Planned[] {
  const out: Planned[] = [];
  for (const via of ['ultra', 'metis'] as const) {
    const base = via === 'ultra' ? 5_000_000n : 6_000_000n;
    out.push({ id: `${via}-split-usdc-input`, via, inputMint: USDC, outputMint: SOL, amount: base + 1_000n, label: 'split-usdc', attack: { kind: 'split-input', cut: 1n } });
    out.push({ id: `${via}-split-sol-input`, via, inputMint: SOL, outputMint: USDC, amount: base * 10n + 2_000n, label: 'split-sol', attack: { kind: 'split-input', cut: 1n } });
    out.push(...honest(via, base));
  }
  return out;
}

describe('a keeper behind a hostile venue', () => {
  const world = useKeeperEnv('hostile');

  it('refuses every attack by its rule and signs nothing of it, for Ultra and Metis, while honest orders in the same run settle', async () => {
    await runBehindHostileVenue(world, 'e2e-hostile', acceptanceInstances());
  }, 300_000);

  it('refuses a payment split between the counterparty and a stranger (destination), though the total and the payout are right', async () => {
    await runBehindHostileVenue(world, 'e2e-hostile-split', splitInstances());
  }, 300_000);
});

/**
 * One keeper run behind a fresh hostile venue (its own stranger) with its own wallet and prefix: each planned attack
 * is served to its instance; then every attacked intent must be refused by its rule with nothing signed, landed or
 * stolen, and every honest one must have settled.
 */
async function runBehindHostileVenue(world: { sim: RunningSimulator; redis: TestRedis; dir: string }, prefix: string, planned: Planned[]): Promise<void> {
  const venue = await startHostileVenue(world.sim);
  const { path: walletPath, keypair } = writeKeypair(world.dir, `${prefix}.wallet.json`);
  const wallet = keypair.publicKey.toBase58();
  await airdrop(world.sim, keypair, SOL, 5_000_000_000n);
  await airdrop(world.sim, keypair, USDC, 1_000_000_000n);
  const emptyJup = openTokenAccount(world.sim, keypair, JUP);
  const stranger = venue.stranger.publicKey.toBase58();
  for (const p of planned) if (p.attack) venue.plan({ attack: p.attack, via: p.via, amount: p.amount, count: 1 });

  const yaml = hostileConfig({ venueUrl: venue.url, prefix, instances: planned.map((p) => ({ id: p.id, via: p.via, inputMint: p.inputMint, outputMint: p.outputMint, amount: p.amount })) });
  const k = spawnKeeper(['run', '--config', writeConfig(world.dir, yaml, `${prefix}.yaml`), '--wallet', walletPath, '--redis-url', world.redis.url]);
  let intents: IntentRecord[] = [];
  onTestFailed(() => {
    console.error(report(planned, intents, venue.attacks(), k));
  });
  try {
    intents = await waitWhileRunning(
      k,
      `an intent of each of the ${planned.length} instances, all terminal`,
      async () => {
        const all = await readIntents(world.redis.url, prefix);
        const done = planned.every((p) => all.some((i) => i.instance === p.id)) && all.every((i) => isTerminalState(i.state));
        return done ? all : undefined;
      },
      180_000,
      500,
    );
  } finally {
    expect(await stopKeeper(k)).toBe(0);
    await venue.close();
  }

  // HOSTILE_REPORT=1 prints what became of each attack even when the test passes.
  if (process.env.HOSTILE_REPORT) console.log(report(planned, intents, venue.attacks(), k));
  const byInstance = new Map(intents.map((i) => [i.instance, i]));
  const records = venue.attacks();
  const refusals = k.logs().filter((l) => l.msg === REFUSAL);
  const walletSigs = venue.signatures({ signer: wallet });
  const settled = (await ledger(world.sim)).filter((t) => t.wallet === wallet && (t.kind === 'ultra' || t.kind === 'swap'));

  // Every attack reached the keeper: one served transaction per attacked instance.
  for (const p of planned.filter((x) => x.attack)) {
    const served = records.filter((r) => r.amount === p.amount && r.via === p.via);
    expect(served.map((r) => r.error ?? (r.served ? 'served' : 'not served')), `${p.id}: the venue served its attack once`).toEqual(['served']);
  }

  const problems: string[] = [];
  for (const p of planned.filter((x) => x.attack)) {
    const rule = PRIMARY_RULE[p.attack!.kind];
    const rec = byInstance.get(p.id)!;
    const served = records.find((r) => r.amount === p.amount && r.via === p.via)!;
    const where = `${p.id} (${served.description ?? p.attack!.kind})`;
    if (rec.state !== 'rejected' || rec.error?.code !== 'GUARD_REFUSED') problems.push(`${where}: ended ${rec.state} ${rec.error?.code ?? ''} ${rec.error?.message ?? ''}, not rejected by the guard`);
    else if (!new RegExp(`(^|; )${rule}: `).test(rec.error.message)) problems.push(`${where}: refused without rule ${rule}: ${rec.error.message}`);
    const line = refusals.find((l) => l.intent === rec.id);
    const logged = ((line?.violations as Array<{ rule: string }> | undefined) ?? []).map((v) => v.rule);
    if (!line) problems.push(`${where}: no '${REFUSAL}' log line`);
    else if (line.level !== LEVEL.error || !logged.includes(rule)) problems.push(`${where}: refusal logged at level ${String(line.level)} with rules [${logged.join(', ')}], not error with ${rule}`);
    if (rec.signature !== null || rec.signedTx !== null || rec.signatures.length > 0) problems.push(`${where}: the ledger holds a signature ${rec.signature ?? rec.signatures.join(',')}`);
    const signedIt = walletSigs.filter((s) => s.message === served.message || (served.requestId !== null && s.requestId === served.requestId));
    if (signedIt.length > 0) problems.push(`${where}: the wallet signed it (${signedIt.map((s) => `${s.source} ${s.signature}`).join(', ')})`);
    if (served.landed.length > 0) problems.push(`${where}: it landed as ${served.landed.join(', ')}`);
    if (served.requestId !== null && settled.some((t) => t.requestId === served.requestId)) problems.push(`${where}: settled on the simulator`);
  }
  expect(problems, 'attacks the keeper did not refuse as required').toEqual([]);

  // Honest orders in the same run landed, each settled once, and they are the only signatures the wallet gave.
  const fair = planned.filter((p) => !p.attack).map((p) => byInstance.get(p.id)!);
  expect(fair.map((i) => `${i.instance}=${i.state}${i.error ? ` ${i.error.code}: ${i.error.message}` : ''}`)).toEqual(fair.map((i) => `${i.instance}=landed`));
  expect(settled.map((t) => t.signature).sort()).toEqual(fair.map((i) => i.signature!).sort());
  expect([...new Set(walletSigs.filter((s) => s.valid).map((s) => s.signature))].sort()).toEqual(fair.map((i) => i.signature!).sort());
  expect(walletSigs.filter((s) => !s.valid)).toEqual([]);

  // Nothing reached the stranger; the wallet's accounts are as they were.
  const s = await balances(world.sim, stranger);
  expect(s.lamports).toBe(STRANGER_LAMPORTS);
  expect(Object.values(s.tokens).filter((a) => a > 0n)).toEqual([]);
  const chain = world.sim.ctx.state.venue.chain;
  const walletAccount = chain.account(keypair.publicKey)!;
  expect(walletAccount.owner.toBase58()).toBe('11111111111111111111111111111111');
  expect(walletAccount.data.length).toBe(0);
  const usdcAta = world.sim.ctx.state.venue.ata(keypair.publicKey, world.sim.ctx.state.venue.token(USDC)!);
  const usdc = readTokenAccount(snapshotOf(chain.account(usdcAta)));
  expect({ owner: usdc?.owner, delegate: usdc?.delegate, closeAuthority: usdc?.closeAuthority }).toEqual({ owner: wallet, delegate: null, closeAuthority: null });
  expect(usdc?.amount).toBe(1_000_000_000n - fair.reduce((sum, i) => sum + (i.intent.kind === 'swap' && i.intent.inputMint === USDC ? i.intent.amount : 0n), 0n));
  expect(readTokenAccount(snapshotOf(chain.account(new PublicKey(emptyJup))))?.owner).toBe(wallet);
}

function snapshotOf(a: { lamports: number; owner: PublicKey; data: Uint8Array } | null): { lamports: bigint; owner: string; data: Uint8Array } | null {
  return a ? { lamports: BigInt(a.lamports), owner: a.owner.toBase58(), data: a.data } : null;
}

/** A table of what became of each instance, the attacks served, and the keeper's warnings, for a failure. */
function report(planned: Planned[], intents: IntentRecord[], records: AttackRecord[], k: KeeperProcess): string {
  const lines = ['==== hostile venue run ===='];
  for (const p of planned) {
    const i = intents.find((x) => x.instance === p.id);
    const r = records.find((x) => x.amount === p.amount && x.via === p.via);
    lines.push(`${p.id.padEnd(26)} ${p.attack ? `expects ${PRIMARY_RULE[p.attack.kind]}`.padEnd(24) : 'honest'.padEnd(24)} -> ${i ? `${i.state} ${i.error?.code ?? ''} ${i.error?.message ?? ''} sig=${i.signature ?? '-'}` : 'no intent'}${r ? ` | served=${r.served}${r.error ? ` error=${r.error}` : ''} landed=[${r.landed.join(',')}]` : ''}`);
  }
  const warn = k.logs().filter((l) => Number(l.level) >= LEVEL.warn && l.msg !== REFUSAL);
  lines.push('warnings and errors (other than refusals):', ...warn.slice(-40).map((l) => `  ${JSON.stringify(l).slice(0, 400)}`));
  const raw = k.stderr.join('').split('\n').filter((l) => l && !l.startsWith('{'));
  if (raw.length > 0) lines.push('non-JSON stderr:', ...raw.slice(-20));
  return lines.join('\n');
}
