// Issue 23, item 5: every kill-switch change, from wherever, appears in the running console and in notifications.
// The switch is thrown and released by `jup-keeper kill-switch on|off`, another process; the running keepers (one
// printing JSON lines, one human lines) say so on their consoles, and the JSON one's webhook receives both changes.
// Real parts: keepers spawned as `jup-keeper run` on the simulator over HTTP, a Redis of the test's own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { KeeperEvent } from '../../src/lib/events.js';
import { cliJson, LEVEL, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { dcaSwapsConfig, spawnKeeper, useKeeperEnv, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { airdrop, SOL } from '../helpers/sim.js';

/** A webhook receiver: the events of every POST. */
async function receiver() {
  const events: KeeperEvent[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      events.push(...(JSON.parse(body) as { events: KeeperEvent[] }).events);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    switches: () => events.filter((e): e is Extract<KeeperEvent, { type: 'kill-switch' }> => e.type === 'kill-switch'),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('a kill switch thrown from the command line, in the running keeper', () => {
  const env = useKeeperEnv('kill-switch-console');
  const keepers: KeeperProcess[] = [];
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const k of keepers) if (k.proc.exitCode === null && k.proc.signalCode === null) k.kill('SIGKILL');
    for (const c of closers) await c();
  });

  /** A keeper of its own prefix and wallet, one dca swap, with `extra` config and `args`. */
  const start = async (name: string, extra: string, args: string[]) => {
    const wallet = writeKeypair(env.dir, `${name}.json`);
    await airdrop(env.sim, wallet.keypair, SOL, 1_000_000_000n);
    const prefix = `ks-console-${name}`;
    const config = writeConfig(env.dir, dcaSwapsConfig({ venueUrl: env.sim.url, prefix, logLevel: 'info', instances: [{ id: 'dca', inputMint: 'SOL', outputMint: 'USDC', amount: 10_000_000n, maxRuns: 1 }], extra }), `${name}.yaml`);
    const k = spawnKeeper(['run', '--config', config, '--wallet', wallet.path, '--redis-url', env.redis.url, '--dashboard-port', '0', ...args]);
    keepers.push(k);
    return { k, prefix };
  };
  const cli = (prefix: string, ...args: string[]) => cliJson<{ engaged: boolean }>(['kill-switch', ...args, '--prefix', prefix, '--redis-url', env.redis.url, '--json']);

  it('prints each change as a JSON record and sends it to the notifier, naming the CLI', { timeout: 120_000 }, async () => {
    const hook = await receiver();
    closers.push(hook.close);
    const { k, prefix } = await start('json', `notify:\n  webhook:\n    url: ${hook.url}\n    events: [kill-switch]\n  coalesce: 0s\n`, ['--log-format', 'json']);
    await k.waitForLog((l) => l.msg === 'keeper started', 60_000);

    expect(await cli(prefix, 'on', '--mode', 'reduce-only', '--reason', 'console test')).toMatchObject({ engaged: true });
    const on = await k.waitForLog((l) => l.msg === 'kill switch engaged', 20_000);
    expect(on).toMatchObject({ level: LEVEL.warn, component: 'kill-switch', engaged: true, mode: 'reduce-only', reason: 'console test', by: 'cli', at: expect.any(Number) });
    expect(await cli(prefix, 'off')).toMatchObject({ engaged: false });
    const off = await k.waitForLog((l) => l.msg === 'kill switch released', 20_000);
    expect(off).toMatchObject({ level: LEVEL.info, component: 'kill-switch', engaged: false, by: 'cli' });

    // The notifier heard both, the release named by who released it.
    await waitUntil(`both changes at the webhook (got ${JSON.stringify(hook.switches())})`, () => hook.switches().length >= 2 || undefined, 30_000);
    expect(hook.switches()).toEqual([
      expect.objectContaining({ engaged: true, mode: 'reduce-only', reason: 'console test', by: 'cli' }),
      expect.objectContaining({ engaged: false, mode: null, by: 'cli' }),
    ]);
    // One line each: the switch thrown elsewhere is told once.
    expect(k.logs().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('kill switch '))).toHaveLength(2);
    expect(await stopKeeper(k)).toBe(0);
  });

  it('prints each change as a human line', { timeout: 120_000 }, async () => {
    const { k, prefix } = await start('pretty', '', ['--log-format', 'pretty']);
    const text = () => k.stderr.join('');
    // The banner's closing rule: the keeper runs.
    await waitUntil(`the banner; stderr:\n${text().slice(-2000)}`, () => (text().match(/^={78}$/gm) ?? []).length >= 2 || undefined, 60_000);

    await cli(prefix, 'on', '--reason', 'stop everything');
    await waitUntil(`the engaged line; stderr:\n${text().slice(-2000)}`, () => /^\d\d:\d\d:\d\d KILL SWITCH ENGAGED \(halt\) by cli: stop everything$/m.test(text()) || undefined, 20_000);
    await cli(prefix, 'off');
    await waitUntil(`the released line; stderr:\n${text().slice(-2000)}`, () => /^\d\d:\d\d:\d\d kill switch released by cli$/m.test(text()) || undefined, 20_000);
    expect(await stopKeeper(k)).toBe(0);
  });
});
