import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveRedis } from '../../src/cli/commands/runKeeper.js';
import { loadConfig } from '../../src/config/index.js';
import { KeeperError } from '../../src/lib/errors.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { PrivateRedis } from '../../src/store/privateRedis.js';
import { builtinStrategies } from '../../strategies/index.js';
import { dcaConfig, freePort, scratchDir, writeConfig, writeKeypair } from '../helpers/keeper.js';

const API_KEY = 'jup_PRIVATEREDISCANARY_0123456789';
const SECRET = '5Jv8WrdjbYtCzQjWAeMcc1Uyu5fLoAw1DxuRsPxxcY8D3Vu2MJGh6Y6LV6qy1tvEHs7xSPmhRYHxnhUVeaf1rLNT';

/** The redis-server binary on PATH. */
function realRedisServer(): string {
  return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
}

describe('where a keeper finds its Redis when nothing answers at the default address', () => {
  const scratch = scratchDir('resolve-redis');
  afterAll(() => scratch.cleanup());
  const wallet = writeKeypair(scratch.dir).path;
  const config = (kind: 'simulator' | 'live') => {
    const yaml = dcaConfig({ venueUrl: 'http://127.0.0.1:9', prefix: 'rr' }).replace('wallet: {}\n', `wallet:\n  keypairPath: ${wallet}\n`);
    const file = writeConfig(scratch.dir, kind === 'live' ? yaml.replace('  kind: simulator\n', '  kind: live\n  rpcUrl: http://127.0.0.1:9/rpc\n') : yaml, `${kind}.yaml`);
    return loadConfig(file, builtinStrategies, { PATH: process.env.PATH });
  };

  it('a live keeper refuses, and never starts the private throwaway redis-server', async () => {
    const nobody = `redis://127.0.0.1:${await freePort()}`;
    const started: PrivateRedis[] = [];
    const err = await resolveRedis(config('live'), {}, silentLogger, (p) => started.push(p), nobody).catch((e: unknown) => e);
    for (const p of started) await p.stop();
    expect(started).toEqual([]);
    expect(err).toBeInstanceOf(KeeperError);
    expect((err as KeeperError).code).toBe('REDIS_DOWN');
    expect((err as KeeperError).message).toMatch(/a live keeper needs its own Redis with AOF \(set REDIS_URL or redis\.url\); it never starts the private throwaway one/);
  });

  it('a paper keeper gets a private redis-server whose environment holds none of the keeper\'s secrets', async () => {
    const nobody = `redis://127.0.0.1:${await freePort()}`;
    // redis-server overwrites its own /proc/<pid>/environ (process title): a wrapper records what it was given.
    const bin = join(scratch.dir, 'bin');
    const dump = join(scratch.dir, 'redis-env.txt');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'redis-server'), `#!/bin/sh\nenv > '${dump}'\nexec '${realRedisServer()}' "$@"\n`, { mode: 0o755 });
    const saved = { ...process.env };
    Object.assign(process.env, {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      JUPITER_API_KEY: API_KEY,
      JUPKEEPER_SECRET_KEY: SECRET,
      SOLANA_RPC_URL: 'https://x.example/KEYINPATH123/',
      REDIS_URL: 'redis://:pw-in-env-999@h:1',
    });
    const started: PrivateRedis[] = [];
    try {
      const url = await resolveRedis(config('simulator'), {}, silentLogger, (p) => started.push(p), nobody);
      expect(started).toHaveLength(1);
      expect(url).toBe(started[0]!.url);
      const environ = readFileSync(dump, 'utf8');
      expect(environ).toMatch(/^PATH=/m);
      for (const secret of [API_KEY, SECRET, 'KEYINPATH123', 'pw-in-env-999', 'JUPITER_API_KEY', 'JUPKEEPER_SECRET_KEY', 'SOLANA_RPC_URL', 'REDIS_URL']) expect(environ).not.toContain(secret);
    } finally {
      process.env = saved;
      for (const p of started) await p.stop();
    }
  });
});
