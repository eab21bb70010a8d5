// Acceptance (issue 7): after `jup-keeper kill-switch on --mode halt` the keeper builds and signs nothing new. The
// switch is thrown while the keeper is caught mid-build (its build requests held at the venue) and more intents wait
// in the queue; from then on, over several strategy ticks, the venue sees no new order or quote, the wallet signs
// nothing new (counted at the venue), and every intent not signed before the halt ends rejected with KILL_SWITCH.
// `kill-switch off` lets trading resume.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { IntentRecord } from '../../src/store/intents.js';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { startHostileVenue, type HostileVenue, type VenueCounts } from '../helpers/hostileVenue.js';
import { airdrop, ledger, SOL, USDC } from '../helpers/sim.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { cliJson, isTerminalState, LEVEL, readIntents, stopKeeper } from '../helpers/e2e.js';
import { hostileConfig, waitWhileRunning } from '../helpers/hostileKeeper.js';

const PREFIX = 'e2e-kill-switch';
/** Strategy ticks (decision windows of every instance) watched after the halt. */
const TICKS_AFTER_HALT = 3;
/** Executions the keeper runs at once. */
const CONCURRENCY = 2;
const INSTANCES = [
  { id: 'dca-ultra-a', via: 'ultra' as const, amount: 5_000_000n },
  { id: 'dca-ultra-b', via: 'ultra' as const, amount: 5_100_000n },
  { id: 'dca-metis', via: 'metis' as const, amount: 5_200_000n },
];

interface KillSwitchDoc {
  prefix: string;
  engaged: boolean;
  mode: string | null;
  reason: string | null;
}

describe('the kill switch in a running keeper', () => {
  const world = useKeeperEnv('kill-switch');
  let venue: HostileVenue;
  beforeAll(async () => {
    venue = await startHostileVenue(world.sim);
  });
  afterAll(async () => {
    await venue?.close();
  });

  it('after halt, the simulator sees no new order or build request and the wallet signs nothing new (counted); off resumes trading', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir);
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 2_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 1_000_000_000n);
    const yaml = hostileConfig({ venueUrl: venue.url, prefix: PREFIX, instances: INSTANCES.map((i) => ({ ...i, inputMint: USDC, outputMint: SOL, maxRuns: 50 })), concurrency: CONCURRENCY });
    const cli = ['--redis-url', world.redis.url, '--prefix', PREFIX, '--json'];
    const redis = new Redis(world.redis.url, { maxRetriesPerRequest: 3 });
    redis.on('error', () => undefined);
    const decisions = new StrategyStateStore(redis, PREFIX);
    const k = spawnKeeper(['run', '--config', writeConfig(world.dir, yaml), '--wallet', walletPath, '--redis-url', world.redis.url]);
    let intents: IntentRecord[] = [];
    onTestFailed(() => {
      console.error(dump(k, intents, venue.counts()));
    });
    try {
      // Trading runs through the venue.
      await waitWhileRunning(k, 'two landed intents', async () => (await readIntents(world.redis.url, PREFIX)).filter((i) => i.state === 'landed').length >= 2, 90_000);

      // Catch the keeper mid-build in every execution slot (so nothing can be between its last switch check and its
      // signature when the switch is thrown), with more intents queued behind.
      const hold = venue.hold();
      const queuedBehind = await waitWhileRunning(
        k,
        'every execution slot held mid-build, and intents queued behind',
        async () => {
          if (hold.held() < CONCURRENCY) return undefined;
          const all = await readIntents(world.redis.url, PREFIX);
          const waiting = all.filter((i) => i.state === 'planned');
          return waiting.length > hold.held() ? waiting : undefined;
        },
        60_000,
      );
      expect(queuedBehind.length).toBeGreaterThan(hold.held());

      const on = await cliJson<KillSwitchDoc>(['kill-switch', 'on', '--mode', 'halt', '--reason', 'e2e halt', ...cli]);
      expect(on).toMatchObject({ prefix: PREFIX, engaged: true, mode: 'halt', reason: 'e2e halt' });
      const haltAt = Date.now();
      const atHalt = await readIntents(world.redis.url, PREFIX);
      const countsAtHalt = venue.counts();
      const heldQuotes = hold.heldRequests().filter((r) => r.path === '/swap/v1/quote').length;
      const liveAtHalt = atHalt.filter((i) => !isTerminalState(i.state) && i.signatures.length === 0).map((i) => i.id);
      const signedAtHalt = new Set(atHalt.flatMap((i) => i.signatures));
      const walletSigsAtHalt = new Set(venue.signatures({ signer: wallet, validOnly: true }).map((s) => s.signature));
      hold.release();

      // Several ticks of every strategy instance after the halt, and every intent ended.
      const seen = new Map<string, Set<string>>(INSTANCES.map((i) => [i.id, new Set<string>()]));
      intents = await waitWhileRunning(
        k,
        `${TICKS_AFTER_HALT} ticks of every instance after the halt, and every intent terminal`,
        async () => {
          for (const i of INSTANCES) {
            const d = await decisions.lastDecision(i.id);
            if (d && d.at > haltAt) seen.get(i.id)!.add(d.window);
          }
          const all = await readIntents(world.redis.url, PREFIX);
          const ticked = [...seen.values()].every((w) => w.size >= TICKS_AFTER_HALT);
          return ticked && all.every((r) => r.state !== 'planned' && r.state !== 'built' && r.state !== 'guarded' && r.state !== 'signed' && r.state !== 'submitted') ? all : undefined;
        },
        120_000,
        200,
      );
      const afterHalt = venue.counts();

      // No new order or quote; a swap only for a quote that was already held at the halt (the build it completes
      // began before the switch, and is not signed).
      expect(afterHalt.orders - countsAtHalt.orders, 'Ultra orders after the halt').toBe(0);
      expect(afterHalt.quotes - countsAtHalt.quotes, 'Metis quotes after the halt').toBe(0);
      expect(afterHalt.swaps - countsAtHalt.swaps, 'Metis swaps after the halt').toBeLessThanOrEqual(Math.max(0, heldQuotes));
      const otherBuilds = afterHalt.builds - countsAtHalt.builds - (afterHalt.swaps - countsAtHalt.swaps);
      expect(otherBuilds, 'other build requests after the halt').toBe(0);
      // The wallet signed nothing new: every signature seen after the halt was given before it.
      const newSigs = venue.signatures({ signer: wallet, validOnly: true }).filter((s) => !walletSigsAtHalt.has(s.signature) && !signedAtHalt.has(s.signature));
      expect(newSigs.map((s) => `${s.source} ${s.signature}`), 'signatures the wallet gave after the halt').toEqual([]);
      expect(intents.filter((i) => i.signature !== null && !signedAtHalt.has(i.signature)).map((i) => i.id), 'intents signed after the halt').toEqual([]);
      // What was queued or mid-build at the halt, and what the ticks after it decided, ended rejected by the switch.
      const known = new Set(atHalt.map((i) => i.id));
      const stopped = intents.filter((i) => liveAtHalt.includes(i.id) || !known.has(i.id));
      expect(stopped.length, 'intents queued, mid-build or decided after the halt').toBeGreaterThanOrEqual(queuedBehind.length);
      expect(stopped.map((i) => `${i.id}=${i.state} ${i.error?.code ?? ''}`)).toEqual(stopped.map((i) => `${i.id}=rejected KILL_SWITCH`));
      // Nothing settled after the halt but what was signed before it.
      const settled = (await ledger(world.sim)).filter((t) => t.wallet === wallet && (t.kind === 'ultra' || t.kind === 'swap'));
      expect(settled.filter((t) => !signedAtHalt.has(t.signature)).map((t) => t.signature)).toEqual([]);
      expect((await cliJson<KillSwitchDoc>(['kill-switch', 'status', ...cli])).engaged).toBe(true);

      // Released, the keeper trades again.
      const off = await cliJson<KillSwitchDoc>(['kill-switch', 'off', ...cli]);
      expect(off.engaged).toBe(false);
      const landedBefore = new Set(intents.filter((i) => i.state === 'landed').map((i) => i.id));
      await waitWhileRunning(k, 'an intent landed after the switch was released', async () => (await readIntents(world.redis.url, PREFIX)).some((i) => i.state === 'landed' && !landedBefore.has(i.id)), 90_000);
      expect(venue.counts().orders + venue.counts().quotes).toBeGreaterThan(afterHalt.orders + afterHalt.quotes);
    } finally {
      redis.disconnect();
      expect(await stopKeeper(k)).toBe(0);
    }
  }, 360_000);
});

function dump(k: KeeperProcess, intents: IntentRecord[], counts: VenueCounts): string {
  const lines = ['==== kill switch ====', `venue counts: ${JSON.stringify({ orders: counts.orders, quotes: counts.quotes, swaps: counts.swaps, builds: counts.builds, executes: counts.executes })}`];
  lines.push(...intents.map((i) => `${i.id} ${i.state} ${i.error?.code ?? ''} ${i.error?.message ?? ''} sigs=[${i.signatures.join(',')}]`));
  lines.push(...k.logs().filter((l) => Number(l.level) >= LEVEL.warn || /kill|signed|landed/.test(String(l.msg))).slice(-50).map((l) => `  ${JSON.stringify(l).slice(0, 400)}`));
  const raw = k.stderr.join('').split('\n').filter((l) => l && !l.startsWith('{'));
  if (raw.length > 0) lines.push('non-JSON stderr:', ...raw.slice(-20));
  return lines.join('\n');
}
