import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/server.js';
import { dcaConfig, freePort, scratchDir, spawnKeeper, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/lib/logger.js';
import { startKeeper } from '../../src/main.js';
import { HotWallet } from '../../src/solana/wallet.js';
import { builtinStrategies } from '../../strategies/index.js';
import { cliJson, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { startTestSim } from '../helpers/sim.js';
import { startRedisServer, type RedisServer } from '../store/redisServer.js';

/** Lines of stderr that are not JSON log lines: what a person reads. */
function plainLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'));
}

/** Runs `jup-keeper run` and measures how long it takes to exit. */
async function runUntilExit(args: string[], env: Record<string, string> = {}): Promise<{ code: number | string; ms: number; lines: string[]; stderr: string }> {
  const started = Date.now();
  const k = spawnKeeper(['run', ...args], env);
  const timer = setTimeout(() => k.kill('SIGKILL'), 20_000);
  const code = await k.exited;
  clearTimeout(timer);
  const stderr = k.stderr.join('');
  return { code, ms: Date.now() - started, lines: plainLines(stderr), stderr };
}

describe('when the keeper cannot start', () => {
  let sim: RunningSimulator;
  const scratch = scratchDir('startup');
  let paperConfig: string;
  let liveConfig: string;
  let keypairPath: string;
  const servers: RedisServer[] = [];
  const redis = async (args: string[], o: { password?: string } = {}): Promise<RedisServer> => {
    const s = await startRedisServer(['--maxmemory-policy', 'noeviction', ...args], o);
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 1 });
    keypairPath = writeKeypair(scratch.dir).path;
    const base = dcaConfig({ venueUrl: sim.url, prefix: 'e2e-startup' }).replace('wallet: {}\n', `wallet:\n  keypairPath: ${keypairPath}\n`);
    paperConfig = writeConfig(scratch.dir, base, 'paper.yaml');
    // A live config pointed at the simulator: same paths, but every live rule applies (durable Redis, no fallback).
    liveConfig = writeConfig(scratch.dir, base.replace('  kind: simulator\n', `  kind: live\n  rpcUrl: ${sim.url}/rpc\n`), 'live.yaml');
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await sim.close();
    scratch.cleanup();
  });

  /** Each failure: non-zero exit within 10 s, and exactly one line a person reads, naming the problem. */
  function expectOneLine(r: Awaited<ReturnType<typeof runUntilExit>>, names: RegExp): void {
    expect(r.code, r.stderr.slice(-2000)).not.toBe(0);
    expect(r.code).not.toBe('SIGKILL');
    expect(r.ms).toBeLessThan(10_000);
    expect(r.lines, r.stderr.slice(-2000)).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^error: /);
    expect(r.lines[0]).toMatch(names);
  }

  it('refuses an eviction policy other than noeviction, paper or live, naming maxmemory-policy', async () => {
    const s = await redis(['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'allkeys-lru']);
    expectOneLine(await runUntilExit(['--config', paperConfig, '--redis-url', s.url]), /set maxmemory-policy noeviction.*\(REDIS_EVICTION\)$/);
    expectOneLine(await runUntilExit(['--config', liveConfig, '--redis-url', s.url]), /set maxmemory-policy noeviction/);
  }, 30_000);

  it('refuses to go live on a Redis without AOF, naming appendonly yes', async () => {
    const s = await redis(['--appendonly', 'no']);
    expectOneLine(await runUntilExit(['--config', liveConfig, '--redis-url', s.url]), /set appendonly yes; a live keeper refuses to start.*\(REDIS_NOT_DURABLE\)$/);
  }, 30_000);

  it('refuses to go live on Redis 7.0 whose AOF is fsynced every second, naming appendfsync always', async () => {
    const s = await redis(['--appendonly', 'yes', '--appendfsync', 'everysec']);
    const version = /redis_version:(\S+)/.exec(await s.client().info('server'))![1]!;
    expect(version, 'this case needs a Redis without WAITAOF').toMatch(/^(6\.|7\.[01]\.)/);
    expectOneLine(await runUntilExit(['--config', liveConfig, '--redis-url', s.url]), /set appendfsync always \(Redis 7\.0\.\d+ has no WAITAOF/);
  }, 30_000);

  it('says so when no Redis answers at the configured URL', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    expectOneLine(await runUntilExit(['--config', paperConfig, '--redis-url', url]), new RegExp(`no Redis answers at ${url} \\(.*ECONNREFUSED.*\\).*\\(REDIS_DOWN\\)$`));
    expectOneLine(await runUntilExit(['--config', liveConfig], { REDIS_URL: url }), /no Redis answers at .*\(REDIS_DOWN\)$/);
  }, 30_000);

  it('names the credentials when Redis refuses them (WRONGPASS, NOAUTH), and never prints the password', async () => {
    const s = await redis(['--appendonly', 'no', '--requirepass', 'right-pass-123'], { password: 'right-pass-123' });
    const wrong = await runUntilExit(['--config', paperConfig, '--redis-url', `redis://:wrong-pass-456@127.0.0.1:${s.port}`]);
    expectOneLine(wrong, /refuses the credentials \(WRONGPASS.*set the password in the Redis URL.*\(REDIS_AUTH\)$/);
    expect(wrong.stderr).not.toContain('wrong-pass-456');
    expectOneLine(await runUntilExit(['--config', paperConfig, '--redis-url', s.url]), /refuses the credentials \(NOAUTH/);
  }, 30_000);

  it('names "databases" when the URL names a database the server does not have, instead of using database 0', async () => {
    const s = await redis(['--appendonly', 'no']);
    expectOneLine(await runUntilExit(['--config', paperConfig, '--redis-url', `${s.url}/99`]), /refuses database 99 .*raise "databases" in redis\.conf above 99.*\(REDIS_DB\)$/);
    expect(await s.client().dbsize()).toBe(0);
  }, 30_000);

  it('leaves no Redis connection open when startKeeper itself refuses (the process would otherwise never exit)', async () => {
    const s = await redis(['--appendonly', 'no', '--maxmemory-policy', 'volatile-lru']);
    const config = loadConfig(liveConfig, builtinStrategies, { PATH: process.env.PATH });
    const err = await startKeeper({ config, role: 'all', redisUrl: s.url, prefix: 'e2e-startup', venueUrl: sim.url, rpcUrl: `${sim.url}/rpc`, wallet: HotWallet.generate(), logger: silentLogger }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'REDIS_EVICTION' });
    const admin = s.client();
    await waitUntil('the keeper\'s connections to close', async () => !/name=jup-keeper:/.test(String(await admin.client('LIST'))), 5_000, 50);
  });

  describe('and when it can', () => {
    let keeper: KeeperProcess | undefined;
    afterAll(async () => {
      if (keeper) await stopKeeper(keeper);
    });

    it('goes live on Redis 7.0 with appendfsync always, in the URL\'s database, and stores the RPC URL as scheme and host only', async () => {
      const s = await redis(['--appendonly', 'yes', '--appendfsync', 'always', '--databases', '100']);
      const url = `${s.url}/99`;
      // A credentialed RPC URL as providers hand them out (the simulator ignores the path's and query's key).
      keeper = spawnKeeper(['run', '--config', liveConfig, '--redis-url', url, '--yes'], { SOLANA_RPC_URL: `${sim.url}/rpc?api-key=RPC-SECRET-789` });
      await keeper.waitForLog((l) => l.msg === 'keeper started', 30_000);
      const db99 = s.client({ db: 99 });
      const db0 = s.client({ db: 0 });
      const meta = await db99.hgetall('e2e-startup:meta');
      expect(meta.venue).toBe('live');
      expect(meta.venueUrl).toBe(sim.url);
      expect(meta.rpcUrl).toBe(new URL(sim.url).origin);
      // Queues and records are in database 99 and nowhere else.
      expect((await db99.keys('e2e-startup:*')).some((k) => k.startsWith('e2e-startup:feeds:'))).toBe(true);
      expect(await db0.dbsize()).toBe(0);
      const status = await cliJson<{ venue: { kind: string; rpcUrl: string } }>(['status', '--redis-url', url, '--prefix', 'e2e-startup', '--json']);
      expect(status.venue).toMatchObject({ kind: 'live', rpcUrl: new URL(sim.url).origin });
      for (const text of [JSON.stringify(await db99.hgetall('e2e-startup:meta')), keeper.stderr.join('')]) expect(text).not.toContain('RPC-SECRET-789');
      // It said what it was about to do: live, the wallet, the strategies and the limits.
      const said = keeper.stderr.join('');
      expect(said).toMatch(/LIVE TRADING: real transactions, real money/);
      expect(said).toMatch(/limits +\$[\d,]+ per intent, \$[\d,]+ per day, slippage ≤ \d+ bps/);
      expect(await stopKeeper(keeper)).toBe(0);
      keeper = undefined;
    }, 60_000);

    it('refuses a live start it cannot ask to confirm (no terminal, no --yes), after showing the limits, with nothing started', async () => {
      const s = await redis(['--appendonly', 'yes', '--appendfsync', 'always']);
      const r = await runUntilExit(['--config', liveConfig, '--redis-url', s.url], { SOLANA_RPC_URL: `${sim.url}/rpc?api-key=RPC-SECRET-789` });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/LIVE TRADING: real transactions, real money/);
      expect(r.stderr).toMatch(/error: a live start must be confirmed: run it in a terminal and answer yes, or pass --yes .*\(LIVE_NOT_CONFIRMED\)/);
      expect(r.stderr).not.toContain('RPC-SECRET-789');
      expect(await s.client().keys('e2e-startup:*'), 'no queue, record or snapshot was written').toEqual([]);
    }, 60_000);
  });

  it('checks the database of a Redis URL also in the read-only commands', async () => {
    const s = await redis(['--appendonly', 'no']);
    const direct = new Redis(s.url);
    await direct.set('e2e-startup:meta', 'x');
    direct.disconnect();
    const r = spawnKeeper(['status', '--redis-url', `${s.url}/99`, '--prefix', 'e2e-startup']);
    expect(await r.exited).toBe(1);
    expect(r.stderr.join('')).toMatch(/refuses database 99/);
  }, 30_000);
});
