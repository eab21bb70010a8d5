// Acceptance (issue 13, item 5): a local webhook receiver gets the fill, claim and kill-switch notifications of a
// paper run; a notifier pointed at a dead address does not slow the bot. Real parts: keepers spawned as
// `jup-keeper run` on the simulator over HTTP and a Redis of the test's own; the kill switch thrown by the CLI (another
// process: its event reaches the keeper's notifier through the deployment's event stream in Redis).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { KEEPER_INSTANCE } from '../../src/engine/keeperPorts.js';
import type { KeeperEvent } from '../../src/lib/events.js';
import { cliJson, readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { dcaSwapsConfig, freePort, spawnKeeper, useKeeperEnv, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { buyOutside, venueClient } from '../helpers/predictionE2e.js';
import { airdrop, control, SOL, USDC } from '../helpers/sim.js';

/** A webhook receiver: every POST's JSON body; with `hang`, it accepts and never answers. */
async function receiver(o: { hang?: boolean } = {}) {
  const bodies: Array<{ events: KeeperEvent[]; text: string }> = [];
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (o.hang) return void held.push(res);
      bodies.push(JSON.parse(body) as { events: KeeperEvent[]; text: string });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    events: () => bodies.flatMap((b) => b.events),
    bodies,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const notifyYaml = (url: string, extra = '') => `notify:
  webhook:
    url: ${url}
    events: [fill, claim, refusal, kill-switch, error, summary]
  rateLimit: { perMinute: 600, burst: 50 }
  coalesce: 0s
${extra}`;

describe('notifications of a paper run', () => {
  const env = useKeeperEnv('notify');
  const keepers: KeeperProcess[] = [];
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const k of keepers) if (k.proc.exitCode === null && k.proc.signalCode === null) k.kill('SIGKILL');
    for (const c of closers) await c();
  });

  it('a local webhook receiver gets the fill, claim and kill-switch notifications', { timeout: 180_000 }, async () => {
    const hook = await receiver();
    closers.push(hook.close);
    const prefix = 'e2e-notify';
    const wallet = writeKeypair(env.dir, 'notify-wallet.json');
    await airdrop(env.sim, wallet.keypair, SOL, 2_000_000_000n);
    await airdrop(env.sim, wallet.keypair, USDC, 50_000_000n);
    // A prediction position of the keeper's wallet that settles its way: the keeper's claim job claims it.
    const jup = venueClient(env.sim);
    const events = await jup.prediction.getEvents({ includeMarkets: true });
    const market = events.data.flatMap((e) => e.markets).find((m) => m.isTradable && m.pricing.buyYesPriceUsd !== null && m.pricing.buyYesPriceUsd < 900_000n)!;
    await buyOutside(env.sim, jup, wallet.keypair, market.marketId, true, 10_000_000n);
    await control(env.sim, '/prediction/resolve', { marketId: market.marketId, result: 'yes' });

    const config = writeConfig(
      env.dir,
      dcaSwapsConfig({
        venueUrl: env.sim.url,
        prefix,
        logLevel: 'info',
        instances: [{ id: 'dca-notify', inputMint: 'SOL', outputMint: 'USDC', amount: 20_000_000n, everySeconds: 1, maxRuns: 2 }],
        extra: `keeper:\n  claimEvery: 1s\n${notifyYaml(hook.url)}`,
      }),
      'notify.yaml',
    );
    const k = spawnKeeper(['run', '--config', config, '--wallet', wallet.path, '--redis-url', env.redis.url]);
    keepers.push(k);
    const why = () => `\nreceived: ${JSON.stringify(hook.events().map((e) => e.type))}\nstderr tail:\n${k.stderr.join('').slice(-3000)}`;
    await k.waitForLog((l) => l.msg === 'notifications on', 60_000);

    const fill = await waitUntil(`a fill notification${why()}`, () => hook.events().find((e) => e.type === 'fill'), 90_000);
    expect(fill).toMatchObject({ instance: 'dca-notify', kind: 'swap', in: { symbol: 'SOL', amount: '20000000', decimals: 9 }, out: { symbol: 'USDC', decimals: 6 }, priceUnit: 'USD/SOL', signature: expect.any(String) });
    expect(hook.bodies.find((b) => b.events.includes(fill))?.text).toMatch(/filled dca-notify: swap 0\.02 SOL → [\d.]+ USDC @ [\d.]+ USD\/SOL \(sig \w{4}…\w{4}\)/);
    const claim = await waitUntil(`a claim notification${why()}`, () => hook.events().find((e) => e.type === 'claim'), 90_000);
    expect(claim).toMatchObject({ instance: KEEPER_INSTANCE, signature: expect.any(String), reason: expect.stringContaining(market.marketId) });

    // The switch thrown from the command line, another process.
    await cliJson(['kill-switch', 'on', '--prefix', prefix, '--redis-url', env.redis.url, '--reason', 'notify test', '--json']);
    const trip = await waitUntil(`a kill-switch notification${why()}`, () => hook.events().find((e) => e.type === 'kill-switch'), 30_000);
    expect(trip).toMatchObject({ engaged: true, mode: 'halt', reason: 'notify test', by: 'cli' });
    expect(hook.bodies.find((b) => b.events.includes(trip))?.text).toContain('KILL SWITCH ENGAGED (halt) by cli: notify test');

    expect(await stopKeeper(k)).toBe(0);
    // No error line, and the receiver's URL in no log line.
    expect(k.logs().filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(k.stderr.join('')).not.toContain(hook.url);
  });

  it('a notifier pointed at a dead address (a closed port, or one that never answers) does not slow the bot', { timeout: 240_000 }, async () => {
    const hanging = await receiver({ hang: true });
    closers.push(hanging.close);
    const closed = `http://127.0.0.1:${await freePort()}/hook`;
    const RUNS = 10;
    const runs = [
      { name: 'control', notify: '' },
      // Gives up after one retry: the warning shows the notifier failing while the bot trades.
      { name: 'closed', notify: notifyYaml(closed, '  retries: 1\n') },
      // Every send hangs until its timeout; a queue of 2 overflows at once.
      { name: 'hanging', notify: notifyYaml(hanging.url, '  timeout: 60s\n  queueSize: 2\n') },
    ].map((r) => {
      const wallet = writeKeypair(env.dir, `dead-${r.name}.json`);
      const config = writeConfig(
        env.dir,
        dcaSwapsConfig({ venueUrl: env.sim.url, prefix: `e2e-notify-${r.name}`, logLevel: 'info', instances: [{ id: `dca-${r.name}`, inputMint: 'SOL', outputMint: 'USDC', amount: 10_000_000n, everySeconds: 1, maxRuns: RUNS }], extra: r.notify }),
        `dead-${r.name}.yaml`,
      );
      return { ...r, wallet, config, prefix: `e2e-notify-${r.name}` };
    });
    for (const r of runs) await airdrop(env.sim, r.wallet.keypair, SOL, 2_000_000_000n);
    // The three at once: the same machine load for each, so they can be compared.
    const procs = runs.map((r) => spawnKeeper(['run', '--config', r.config, '--wallet', r.wallet.path, '--redis-url', env.redis.url]));
    keepers.push(...procs);
    const landed = async (prefix: string) => (await readIntents(env.redis.url, prefix)).filter((i) => i.state === 'landed');
    await waitUntil(
      'every run landing its swaps',
      async () => {
        const counts = await Promise.all(runs.map(async (r) => (await landed(r.prefix)).length));
        return counts.every((c) => c >= RUNS) || undefined;
      },
      180_000,
      500,
    );
    for (const p of procs) expect(await stopKeeper(p)).toBe(0);

    // Tick to landing of each swap (the intent's creation by the evaluation to its landed record).
    const latencies = await Promise.all(runs.map(async (r) => (await landed(r.prefix)).map((i) => i.updatedAt - i.createdAt).sort((a, b) => a - b)));
    const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
    const [control, closedPort, hung] = latencies.map(median) as [number, number, number];
    console.log(`notify e2e: median tick to landing, control ${control} ms, closed port ${closedPort} ms, never answering ${hung} ms; each: ${JSON.stringify(latencies)}`);
    expect(latencies.map((l) => l.length)).toEqual([RUNS, RUNS, RUNS]);
    // As fast as the control run beside it. A notifier on the execution path would add its hanging send's timeout
    // (60 s) or its retries' backoff (1 s, then 2 s) to the landings; what is allowed here is the jitter of three
    // keepers on a loaded 2-core machine (a stall of one process for a second is seen under a load of 15).
    expect(closedPort).toBeLessThanOrEqual(control * 3 + 1_000);
    expect(hung).toBeLessThanOrEqual(control * 3 + 1_000);

    // The notifiers did fail meanwhile: the closed port's messages were given up, the hanging one's queue overflowed.
    const [, closedLogs, hungLogs] = procs.map((p) => p.logs());
    expect(closedLogs!.some((l) => l.msg === 'notifications: gave up sending a message' && l.sink === 'webhook')).toBe(true);
    expect(hungLogs!.some((l) => l.msg === 'notifications: the sink is behind; dropped the oldest queued events')).toBe(true);
    // And the dead address is in no log line.
    expect(procs[1]!.stderr.join('')).not.toContain(closed);
  });
});
