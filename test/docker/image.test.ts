// The Docker image without Docker (CI has no daemon): the keeper compiled as the image's build stage compiles it
// (`npm run build`), laid out as the Dockerfile's last stage lays it out (its COPY lines, replayed into a temporary
// directory: dist/, node_modules, package.json and config/, and none of our TypeScript), started with the
// Dockerfile's ENTRYPOINT and docker-compose.yml's commands for the simulator and the bot, and judged by the
// Dockerfile's HEALTHCHECK. Then cheap guards that the two files keep what the image promises.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { freePort, ROOT, spawnNode, type KeeperProcess } from '../helpers/keeper.js';
import { freshShellEnv } from '../helpers/npmStart.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One instruction of a Dockerfile: its keyword, the rest of its line, and the stage it is in (0 = the first FROM). */
interface Instruction {
  stage: number;
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments left out. */
function dockerfile(): Instruction[] {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  let stage = -1;
  return lines.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    if (keyword.toUpperCase() === 'FROM') stage += 1;
    return { stage, keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
}

/** The instructions of the image's last stage (what ships). */
function finalStage(): Instruction[] {
  const all = dockerfile();
  const last = Math.max(...all.map((i) => i.stage));
  return all.filter((i) => i.stage === last);
}

/** The exec-form (JSON array) argument of an instruction, after any flags. */
function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  return z.array(z.string()).parse(JSON.parse(json));
}

/** The part of docker-compose.yml the image's promises rest on. */
const composeSchema = z.object({
  services: z.object({
    redis: z.object({
      image: z.string(),
      command: z.array(z.string()),
      volumes: z.array(z.string()),
      healthcheck: z.object({ test: z.array(z.string()) }),
    }),
    sim: z.object({
      command: z.array(z.string()),
      healthcheck: z.object({ test: z.array(z.string()) }),
    }),
    bot: z.object({
      command: z.array(z.string()),
      environment: z.record(z.string(), z.string()),
      depends_on: z.record(z.string(), z.object({ condition: z.string() })),
      restart: z.string(),
      stop_grace_period: z.string(),
      ports: z.array(z.string()).optional(),
    }),
  }),
  volumes: z.record(z.string(), z.unknown().nullable()),
});

function compose(): z.output<typeof composeSchema> {
  return composeSchema.parse(load(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')));
}

/** The value after `flag` in a command line. */
function valueOf(args: readonly string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at < 0 ? undefined : args[at + 1];
}

/** A command line with the value after `flag` replaced (the flag must be there). */
function withValue(args: readonly string[], flag: string, value: string): string[] {
  const at = args.indexOf(flag);
  if (at < 0) throw new Error(`${flag} is not in ${args.join(' ')}`);
  return args.map((a, i) => (i === at + 1 ? value : a));
}

/** Runs `node <args>` to its end in `cwd` with only PATH and `env` in its environment. */
function runNode(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** `work`, failed at once with the process's last output if the process exits before it is done. */
function whileRunning<T>(k: KeeperProcess, work: Promise<T>): Promise<T> {
  const died = k.exited.then((code): never => {
    throw new Error(`exited (${String(code)}) first; output tail:\n${[...k.stdout, ...k.stderr].join('').slice(-3000)}`);
  });
  return Promise.race([work, died]);
}

/** Every file under a directory, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' });
}

describe('the compiled keeper, laid out as the Docker image lays it out', () => {
  // The image's /app.
  let app = '';
  let entry: string[] = [];
  const prefix = `jkd-${process.pid}-${Date.now().toString(36)}`;
  const started: KeeperProcess[] = [];

  beforeAll(async () => {
    app = realpathSync(mkdtempSync(join(tmpdir(), 'jk-image-')));
    const copies = finalStage().filter((i) => i.keyword === 'COPY');
    // The build stage's output, compiled where the last stage puts it.
    const fromBuild = copies.find((c) => c.args.startsWith('--from=build '));
    const [, builtFrom, builtTo] = fromBuild?.args.split(/\s+/) ?? [];
    expect(builtFrom, 'the last stage copies /app/dist from the build stage').toBe('/app/dist');
    const startedAt = Date.now();
    const build = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile('npm', ['run', 'build', '--', '--out-dir', join(app, builtTo!)], { cwd: ROOT, env: freshShellEnv(), timeout: 240_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, output: `${stdout}${stderr}` }),
      );
    });
    if (build.code !== 0) throw new Error(`npm run build failed (${String(build.code)}):\n${build.output.slice(-4000)}`);
    console.log(`npm run build: ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    for (const c of copies) {
      if (c === fromBuild) continue;
      const [from, to] = c.args.split(/\s+/).filter((a) => !a.startsWith('--'));
      if (c.args.startsWith('--from=deps ')) {
        // The production dependencies: here the project's own node_modules (dev ones too), linked.
        expect(from).toBe('/app/node_modules');
        symlinkSync(join(ROOT, 'node_modules'), join(app, to!), 'dir');
      } else {
        // `COPY package.json ./`: into the directory, as Docker does with a destination ending in a slash.
        cpSync(join(ROOT, from!), to!.endsWith('/') ? join(app, to!, basename(from!)) : join(app, to!), { recursive: true });
      }
    }
    // A strategy of the user's own, in TypeScript, where a user's config would put it.
    cpSync(join(ROOT, 'test/docker/sdk-probe.ts'), join(app, 'config/strategies/sdk-probe.ts'));
    const entrypoint = execForm(finalStage().find((i) => i.keyword === 'ENTRYPOINT')!.args);
    entry = entrypoint.slice(entrypoint.indexOf('node') + 1);
  }, 300_000);

  afterAll(async () => {
    for (const k of started) if (k.proc.exitCode === null && k.proc.signalCode === null) k.kill('SIGKILL');
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    redis.on('error', () => undefined);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
    if (app) rmSync(app, { recursive: true, force: true });
  });

  /** `jup-keeper <args>` as the image's ENTRYPOINT runs it: plain node on the compiled CLI, in /app. */
  function keeper(args: readonly string[], env: Record<string, string> = {}): KeeperProcess {
    const k = spawnNode([...entry, ...args], { LOG_LEVEL: 'info', ...env }, app);
    started.push(k);
    return k;
  }

  it('holds no TypeScript of ours, and the CLI reads its version and the compose config on plain node', async () => {
    expect(existsSync(join(app, 'src'))).toBe(false);
    expect(filesUnder(join(app, 'dist')).filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(existsSync(join(app, 'dist/src/engine/isolation/entry.mjs'))).toBe(true);

    const version = await runNode([...entry, '--version'], app);
    expect(version.output.trim()).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
    const config = valueOf(compose().services.bot.command, '--config')!;
    const check = await runNode([...entry, 'config', 'check', config], app);
    expect(check.code, check.output).toBe(0);
  }, 60_000);

  it('runs the simulator and a paper keeper with a TypeScript strategy of the user\'s own on the compiled SDK: HEALTHCHECK passes, SIGTERM stops it with 0', async () => {
    const { sim: simService, bot: botService } = compose().services;

    // The sim service, on a free port.
    const simPort = await freePort();
    const sim = keeper(withValue(simService.command, '--port', String(simPort)));
    await whileRunning(sim, waitUntil('the simulator to print its URL', () => /jupiter api: /.test(sim.stdout.join('')), 60_000));
    const simUrl = `http://127.0.0.1:${simPort}`;
    // Its compose health check, pointed at that port.
    const [, ...simCheck] = simService.healthcheck.test;
    expect(simCheck[0]).toBe('node');
    const composeSimPort = valueOf(simService.command, '--port')!;
    const simHealth = await runNode(simCheck.slice(1).map((a) => a.replace(`:${composeSimPort}/`, `:${simPort}/`)), app);
    expect(simHealth.code, simHealth.output).toBe(0);

    // The bot service's command, on a config of this test's: a paper wallet, a built-in swap and the user's strategy.
    writeFileSync(
      join(app, 'config/docker-test.yaml'),
      `venue:
  kind: simulator
wallet:
  paper: true
  fund: { SOL: "1000000000", USDC: "100000000" }
redis:
  prefix: ${prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  minSolReserveLamports: "10000000"
execution:
  reconcileEvery: 2s
feeds:
  prices: 1s
  wallet: 1s
strategies:
  - id: probe
    strategy: ./strategies/sdk-probe.ts
    schedule: { every: 2s }
    params: {}
  - id: dca
    strategy: dca-swap
    schedule: { every: 2s }
    params: { inputMint: USDC, outputMint: SOL, amount: "1000000", maxRuns: 1 }
`,
    );
    const token = randomBytes(24).toString('hex');
    const dashboardPort = String(await freePort());
    let args = withValue(botService.command, '--config', 'config/docker-test.yaml');
    args = withValue(args, '--venue-url', simUrl);
    args = withValue(args, '--dashboard-port', dashboardPort);
    const bot = keeper(args, { REDIS_URL, DASHBOARD_TOKEN: token });

    // The user's strategy decided in its thread, on the SDK the engine uses: the compiled one, not src/sdk/index.ts
    // (which is not in the image).
    const probe = await whileRunning(bot, bot.waitForLog((l) => l.msg === 'sdk probe', 90_000));
    expect(probe.sdk).toBe(pathToFileURL(join(app, 'dist/src/sdk/index.js')).href);
    // The built-in's swap went the whole way: built, guarded, signed, landed on the simulator.
    await whileRunning(bot, waitUntil('the swap to land', async () => (await readIntents(REDIS_URL, prefix)).some((r) => r.instance === 'dca' && r.state === 'landed'), 90_000));

    // The Dockerfile's HEALTHCHECK, with the environment compose gives the bot.
    const healthcheck = execForm(finalStage().find((i) => i.keyword === 'HEALTHCHECK')!.args);
    expect(healthcheck[0]).toBe('node');
    const health = (env: Record<string, string>) => runNode(healthcheck.slice(1), app, env);
    await whileRunning(bot, waitUntil('the health check to pass', async () => (await health({ DASHBOARD_PORT: dashboardPort, DASHBOARD_TOKEN: token })).code === 0, 60_000));
    const wrongToken = await health({ DASHBOARD_PORT: dashboardPort, DASHBOARD_TOKEN: 'not-the-token-0123456789' });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.output).toMatch(/answered 401/);

    // docker stop: SIGTERM (tini passes it on), a clean stop, exit 0.
    expect(await stopKeeper(bot, 60_000)).toBe(0);
    const afterStop = await health({ DASHBOARD_PORT: dashboardPort, DASHBOARD_TOKEN: token });
    expect(afterStop.code).toBe(1);
    expect(await stopKeeper(sim, 30_000)).toBe(0);
  }, 240_000);
});

describe('Dockerfile and docker-compose.yml', () => {
  it('builds in stages on node:20-bookworm-slim and ships compiled JavaScript run by tini as a user other than root', () => {
    const all = dockerfile();
    const froms = all.filter((i) => i.keyword === 'FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f.args).toMatch(/^node:20-bookworm-slim\b/);
    expect(all.some((i) => i.keyword === 'RUN' && /npm ci\b(?!.*--omit=dev)/.test(i.args))).toBe(true);
    expect(all.some((i) => i.keyword === 'RUN' && /npm run build/.test(i.args))).toBe(true);

    const last = finalStage();
    const user = last.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0', '0:0', 'root:root']).not.toContain(user);
    expect(last.some((i) => i.keyword === 'RUN' && /apt-get install .*\btini\b/.test(i.args))).toBe(true);
    const entrypoint = execForm(last.find((i) => i.keyword === 'ENTRYPOINT')!.args);
    expect(entrypoint.slice(0, 3)).toEqual(['/usr/bin/tini', '--', 'node']);
    expect(entrypoint[3]).toMatch(/^dist\/.*\.js$/);
    expect(execForm(last.find((i) => i.keyword === 'HEALTHCHECK')!.args)).toEqual(['node', 'dist/src/cli/healthcheck.js']);
  });

  it('has no redis-server and no secrets in the image, and keeps them out of the build context', () => {
    const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(text).not.toMatch(/redis-server/);
    const all = dockerfile();
    for (const c of all.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')) {
      const sources = c.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1);
      for (const s of sources) {
        expect(s, c.args).not.toBe('.');
        expect(s, c.args).not.toMatch(/\.env|keypair|wallet|secret|\.pem$/i);
      }
    }
    for (const e of all.filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG')) {
      expect(e.args).not.toMatch(/JUPITER_API_KEY|DASHBOARD_TOKEN|JUPKEEPER_SECRET_KEY|JUPKEEPER_KEYPAIR_PATH|SOLANA_RPC_URL/);
    }
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    for (const p of ['node_modules', 'dist', '.git', '.env']) expect(ignored).toContain(p);
    expect(ignored.some((p) => /keypair/.test(p))).toBe(true);
  });

  it('runs Redis with AOF and noeviction on a volume, the simulator, and the paper bot against both', () => {
    const { services, volumes } = compose();
    const { redis, sim, bot } = services;
    expect(redis.image).toMatch(/^redis:7/);
    expect(valueOf(redis.command, '--appendonly')).toBe('yes');
    expect(valueOf(redis.command, '--appendfsync')).toBe('everysec');
    expect(valueOf(redis.command, '--maxmemory-policy')).toBe('noeviction');
    const [volume, mount] = redis.volumes[0]!.split(':');
    expect(mount).toBe('/data');
    expect(Object.keys(volumes)).toContain(volume);
    expect(redis.healthcheck.test.length).toBeGreaterThan(0);

    expect(sim.command[0]).toBe('sim');
    expect(valueOf(sim.command, '--host')).toBe('0.0.0.0');

    expect(bot.command[0]).toBe('run');
    expect(valueOf(bot.command, '--venue-url')).toBe(`http://sim:${valueOf(sim.command, '--port')}`);
    expect(valueOf(bot.command, '--dashboard-host')).toBe('0.0.0.0');
    expect(bot.environment.REDIS_URL).toBe('redis://redis:6379');
    // From the environment or .env, and required: compose refuses to start without it.
    expect(bot.environment.DASHBOARD_TOKEN).toMatch(/^\$\{DASHBOARD_TOKEN:\?/);
    expect(bot.environment.DASHBOARD_PORT).toBe(valueOf(bot.command, '--dashboard-port'));
    expect(bot.depends_on).toEqual({ redis: { condition: 'service_healthy' }, sim: { condition: 'service_healthy' } });
    expect(bot.restart).toBe('unless-stopped');
    // The workers get 20 s to finish in-flight executions on SIGTERM, then queues and Redis close.
    const grace = /^(\d+)s$/.exec(bot.stop_grace_period);
    expect(Number(grace?.[1])).toBeGreaterThanOrEqual(30);
  });
});
