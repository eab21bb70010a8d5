import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/sim/http/recorder.js';
import { airdrop, control, ledger, SOL, USDC } from '../helpers/sim.js';
import { spawnKeeper, writeConfig, writeKeypair, useKeeperEnv } from '../helpers/keeper.js';
import { dcaSwapsConfig, isTerminalState, LEVEL, readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';

const PREFIX = 'e2e-storms';
const RUNS = 18;
const STORM_MS = 6_000;
const RETRY_AFTER_S = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isJupiter = (r: RecordedRequest) => !r.path.startsWith('/rpc') && !r.path.startsWith('/__sim');

/** Most requests for one URL inside any `windowMs` span. */
function peakPerUrl(requests: RecordedRequest[], windowMs: number): { url: string; count: number } {
  let best = { url: '', count: 0 };
  const byUrl = new Map<string, number[]>();
  for (const r of requests) byUrl.set(r.path, [...(byUrl.get(r.path) ?? []), r.at]);
  for (const [url, times] of byUrl) {
    for (let i = 0, j = 0; i < times.length; i += 1) {
      while (times[i]! - times[j]! >= windowMs) j += 1;
      if (i - j + 1 > best.count) best = { url, count: i - j + 1 };
    }
  }
  return best;
}

describe('a keeper through rate-limit storms, 5xx bursts and broken responses', () => {
  const world = useKeeperEnv('storms', { sim: { recordRequests: true } });

  it('keeps running, backs off, and lands every planned swap once after the venue recovers', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir);
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 2_000_000_000n);
    const config = writeConfig(
      world.dir,
      dcaSwapsConfig({ venueUrl: world.sim.url, prefix: PREFIX, instances: [{ id: 'dca', inputMint: SOL, outputMint: USDC, amount: 10_000_000n, via: 'ultra', everySeconds: 2, maxRuns: RUNS }] }),
    );
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url]);
    let exitedEarly: number | string | undefined;
    void k.exited.then((c) => (exitedEarly = c));
    try {
      await k.waitForLog((l) => l.msg === 'landed', 30_000);

      // 1. A 429 storm on every Jupiter path; each answer says a slot frees in a second.
      const stormFrom = Date.now();
      await control(world.sim, '/faults', { kind: 'rate-limit', durationMs: STORM_MS, retryAfterSeconds: RETRY_AFTER_S });
      await sleep(STORM_MS + 500);
      const stormTo = stormFrom + STORM_MS;
      expect(exitedEarly).toBeUndefined();

      // 1b. A storm on execute alone: orders are built, guarded and signed, then the venue refuses the signed bytes
      // for 4 s. Execute is never retried by the client; the confirmation loop re-sends the same bytes now and then.
      const executeStormFrom = Date.now();
      await control(world.sim, '/faults', { kind: 'rate-limit', durationMs: 4_000, retryAfterSeconds: RETRY_AFTER_S, pathPrefix: '/ultra/v1/execute' });
      await sleep(4_500);
      const executeStormTo = executeStormFrom + 4_000;

      // 2. Two bursts of 5xx.
      await control(world.sim, '/faults', { kind: 'server-error', count: 8, status: 503 });
      await waitUntil('the first 5xx burst to be consumed', async () => (await control<{ faults: unknown[] }>(world.sim, '/faults', undefined, 'GET')).faults.length === 0, 20_000);
      await sleep(1_000);
      await control(world.sim, '/faults', { kind: 'server-error', count: 6, status: 500 });
      await waitUntil('the second 5xx burst to be consumed', async () => (await control<{ faults: unknown[] }>(world.sim, '/faults', undefined, 'GET')).faults.length === 0, 20_000);
      expect(exitedEarly).toBeUndefined();

      // 3. Broken bodies: truncated JSON and a broken schema, on prices and on orders.
      const brokenFrom = Date.now();
      for (const pathPrefix of ['/price/v3', '/ultra/v1/order']) {
        await control(world.sim, '/faults', { kind: 'malformed-json', count: 1, pathPrefix });
        await control(world.sim, '/faults', { kind: 'schema-break', count: 1, pathPrefix });
      }
      await waitUntil('the broken responses to be consumed', async () => (await control<{ faults: unknown[] }>(world.sim, '/faults', undefined, 'GET')).faults.length === 0, 30_000);
      const recovered = Date.now();
      const atRecovery = await readIntents(world.redis.url, PREFIX);
      expect(exitedEarly).toBeUndefined();

      // 4. The venue is healthy again: every run of the strategy ends, and the later ones land.
      const intents = await waitUntil(
        `${RUNS} terminal intents`,
        async () => {
          const all = await readIntents(world.redis.url, PREFIX);
          return all.length >= RUNS && all.every((i) => isTerminalState(i.state)) ? all : undefined;
        },
        90_000,
      );
      expect(exitedEarly).toBeUndefined();

      // No intent lost, none doubled: one per run; every one terminal; each landed swap settled exactly once.
      expect(intents).toHaveLength(RUNS);
      const settled = (await ledger(world.sim)).filter((t) => t.wallet === wallet && t.kind === 'ultra');
      const landed = intents.filter((i) => i.state === 'landed');
      expect(settled).toHaveLength(landed.length);
      for (const i of landed) expect(settled.filter((s) => s.requestId === i.requestId)).toHaveLength(1);
      for (const i of intents.filter((x) => x.state !== 'landed')) expect(i.error?.code, `${i.id} ${i.state}`).toMatch(/^[A-Z][A-Z0-9_]+$/);
      // Those planned during the faults: landed after recovery or ended with a clear error code.
      const duringFaults = intents.filter((i) => i.createdAt >= stormFrom && i.createdAt < recovered);
      expect(duringFaults.length).toBeGreaterThanOrEqual(3);
      for (const i of duringFaults) expect(i.state === 'landed' || (i.error?.code ?? '') !== '', `${i.id} ${i.state}`).toBe(true);
      // The runs after recovery land (how many runs are left for after it depends on how long the faults took on
      // this machine; every run landing, below, covers the rest): landings resumed once the venue was healthy.
      for (const i of intents.filter((x) => x.createdAt > recovered)) expect(i.state, i.id).toBe('landed');
      const workLeft = atRecovery.length < RUNS || atRecovery.some((i) => !isTerminalState(i.state));
      if (workLeft) expect(landed.some((i) => i.updatedAt >= recovered), 'work was left at recovery: something must land after it').toBe(true);
      // In this run every swap eventually lands: the faults cost time, not swaps.
      expect(landed).toHaveLength(RUNS);

      // Backoff during the storm: each 429 retry waited about the time the headers named, and no URL was hammered.
      const requests = world.sim.requests().filter(isJupiter);
      const inStorm = requests.filter((r) => r.at >= stormFrom && r.at < stormTo);
      expect(inStorm.filter((r) => r.status === 429).length).toBeGreaterThan(0);
      expect(inStorm.length, 'Jupiter requests during the 6 s storm').toBeLessThanOrEqual(60);
      // Each caller waits at least 0.9 × the named second between its own tries: within any 0.9 s, at most one request
      // per concurrent job (feeds, evaluate, two executions) for any one URL, however late timers fire on a busy machine.
      const peak = peakPerUrl(inStorm, RETRY_AFTER_S * 1000 * 0.9);
      expect(peak.count, `requests for ${peak.url} within 0.9 s`).toBeLessThanOrEqual(4);
      const retries429 = k.logs().filter((l) => l.msg === 'jupiter request failed, retrying' && l.code === 'JUP_HTTP_429');
      expect(retries429.length).toBeGreaterThan(0);
      for (const r of retries429) expect(r.delayMs as number).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 * 0.9);
      // The 5xx retries backed off too (exponential, not a tight loop).
      const retries5xx = k.logs().filter((l) => l.msg === 'jupiter request failed, retrying' && /^JUP_HTTP_5/.test(String(l.code)));
      expect(retries5xx.length).toBeGreaterThan(0);
      for (const r of retries5xx) expect(r.delayMs as number).toBeGreaterThanOrEqual(100);
      // The execute endpoint was never retried by the client: no two execute requests carry the same body.
      const executes = requests.filter((r) => r.path.startsWith('/ultra/v1/execute') && r.status === 200);
      expect(new Set(executes.map((r) => r.body)).size).toBe(executes.length);

      // The execute storm: the same signed bytes were re-sent at the confirmation loop's pace (not hammered), and
      // each of them settled once afterwards.
      const executeStorm = requests.filter((r) => r.path.startsWith('/ultra/v1/execute') && r.at >= executeStormFrom && r.at < executeStormTo);
      expect(executeStorm.filter((r) => r.status === 429).length).toBeGreaterThan(0);
      const byBody = new Map<string, number[]>();
      for (const r of requests.filter((x) => x.path.startsWith('/ultra/v1/execute'))) byBody.set(r.body, [...(byBody.get(r.body) ?? []), r.at]);
      for (const r of executeStorm.filter((x) => x.status === 429)) {
        const times = byBody.get(r.body)!;
        for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1_500);
        expect(executes.filter((e) => e.body === r.body)).toHaveLength(1);
      }

      // Broken bodies were logged (naming the endpoint) and the keeper kept going.
      const afterBroken = k.logs().filter((l) => (l.time as number) >= brokenFrom - 1_000);
      const mentions = (re: RegExp) => afterBroken.some((l) => (l.level as number) >= LEVEL.warn && re.test(JSON.stringify(l)));
      expect(mentions(/price\.get: response does not match the schema: \(root\): body is not JSON/)).toBe(true);
      expect(mentions(/ultra\.order: response does not match the schema: \(root\): body is not JSON/)).toBe(true);
      expect(mentions(/price\.get: response does not match the schema: (?!\(root\): body is not JSON)/)).toBe(true);
      expect(mentions(/ultra\.order: response does not match the schema: (?!\(root\): body is not JSON)/)).toBe(true);

      // Nothing fatal; nothing at error level either (transient venue trouble is a warning).
      expect(k.logs().filter((l) => (l.level as number) >= LEVEL.error)).toEqual([]);
    } finally {
      expect(await stopKeeper(k)).toBe(0);
    }
    expect(k.logs().some((l) => l.msg === 'keeper stopped')).toBe(true);
  }, 180_000);
});
