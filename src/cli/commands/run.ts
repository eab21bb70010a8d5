import { dirname, isAbsolute, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { loadConfig, type KeeperConfig } from '../../config/index.js';
import { KeeperError } from '../../lib/errors.js';
import { createLogger, type Logger } from '../../lib/logger.js';
import { knownBySymbol } from '../../lib/mints.js';
import { startKeeper, venueUrls } from '../../main.js';
import { startSimulator, type RunningSimulator } from '../../sim/server.js';
import { HotWallet } from '../../solana/wallet.js';
import { DEFAULT_REDIS_URL } from '../../store/redis.js';
import { redisAnswers, startPrivateRedis, type PrivateRedis } from '../../store/privateRedis.js';
import { builtinStrategies } from '../../../strategies/index.js';
import { intInRange } from '../args.js';
import type { CliContext } from '../context.js';

interface RunOptions {
  config: string;
  venueUrl?: string;
  wallet?: string;
  duration?: number;
  role: 'all' | 'scheduler' | 'worker';
  prefix?: string;
  redisUrl?: string;
}

/**
 * Registers `run`: the keeper daemon. On the simulator venue without a URL it starts the simulator in-process; with
 * no Redis answering and none configured it starts a private redis-server. SIGINT/SIGTERM (or --duration) shut it
 * down in reverse order: workers finish in-flight executions, then queues, Redis, the simulator.
 */
export function registerRunCommand(program: Command, _ctx: CliContext): void {
  program
    .command('run')
    .description('run the keeper: feeds, strategies, execution (paper trading on the simulator by default)')
    .requiredOption('--config <file>', 'the YAML config file')
    .option('--venue-url <url>', 'origin of an already running venue (e.g. `jup-keeper sim`); RPC at <url>/rpc')
    .option('--wallet <keypair.json>', 'Solana CLI keypair file (a JSON array of 64 bytes)')
    .addOption(new Option('--duration <seconds>', 'stop cleanly after this many seconds').argParser(intInRange('--duration', 1, 31 * 86_400)))
    .addOption(new Option('--role <role>', 'which parts to run').choices(['all', 'scheduler', 'worker']).default('all'))
    .option('--prefix <prefix>', 'Redis key prefix of this deployment (default: the config, then "jk")')
    .option('--redis-url <url>', 'Redis URL (default: the config, REDIS_URL, then redis://127.0.0.1:6379)')
    .action(async (opts: RunOptions) => {
      // --wallet counts as the configured wallet, exactly like JUPKEEPER_KEYPAIR_PATH.
      const env = opts.wallet ? { ...process.env, JUPKEEPER_KEYPAIR_PATH: opts.wallet } : process.env;
      const config = loadConfig(opts.config, builtinStrategies, env);
      const logger = createLogger({ level: process.env.LOG_LEVEL ?? config.logging.level });
      await runKeeper(config, opts, logger);
    });
}

async function runKeeper(config: KeeperConfig, opts: RunOptions, logger: Logger): Promise<void> {
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async (): Promise<void> => {
    while (cleanups.length > 0) await cleanups.pop()!().catch((err: unknown) => logger.error({ err }, 'shutdown step failed'));
  };
  try {
    const redisUrl = await resolveRedis(config, opts, logger, (p) => cleanups.push(() => p.stop()));
    let sim: RunningSimulator | undefined;
    let venueUrl = opts.venueUrl ?? config.venue.url;
    if (config.venue.kind === 'simulator' && !venueUrl) {
      sim = await startSimulator({ ...config.venue.simulator, logger: logger.child({ component: 'sim' }) });
      cleanups.push(() => sim!.close());
      venueUrl = sim.url;
      logger.info({ url: sim.url, rpc: sim.rpcUrl }, 'simulator started in-process');
    }
    const urls = venueUrls(config, venueUrl);
    const wallet = await loadWallet(config, opts, urls.venueUrl, logger);
    const freshSession = sim !== undefined && config.wallet.paper && !opts.wallet;
    const keeper = await startKeeper({ config, role: opts.role, redisUrl, prefix: opts.prefix ?? config.redis.prefix, venueUrl: urls.venueUrl, rpcUrl: urls.rpcUrl, wallet, logger, freshSession });
    cleanups.push(() => keeper.close());
    await waitForStop(opts.duration, logger);
  } finally {
    await cleanup();
  }
}

async function resolveRedis(config: KeeperConfig, opts: RunOptions, logger: Logger, onPrivate: (p: PrivateRedis) => void): Promise<string> {
  const explicit = opts.redisUrl ?? config.redis.url ?? config.env.REDIS_URL;
  const url = explicit ?? DEFAULT_REDIS_URL;
  if (await redisAnswers(url)) return url;
  if (explicit) throw new KeeperError('REDIS_DOWN', 'halt', `no Redis answers at ${url.replace(/\/\/[^@]*@/, '//***@')}`);
  const p = await startPrivateRedis();
  onPrivate(p);
  logger.warn({ url: p.url }, 'no Redis on 127.0.0.1:6379: started a private redis-server for this run (its data is removed on exit)');
  return p.url;
}

async function loadWallet(config: KeeperConfig, opts: RunOptions, venueUrl: string, logger: Logger): Promise<HotWallet> {
  const fromConfig = config.wallet.keypairPath && (isAbsolute(config.wallet.keypairPath) ? config.wallet.keypairPath : resolve(dirname(config.file), config.wallet.keypairPath));
  const file = opts.wallet ?? config.env.JUPKEEPER_KEYPAIR_PATH ?? fromConfig;
  if (file) return HotWallet.fromFile(file);
  if (config.env.JUPKEEPER_SECRET_KEY) return HotWallet.fromSecret(config.env.JUPKEEPER_SECRET_KEY);
  if (!config.wallet.paper || config.venue.kind !== 'simulator') throw new KeeperError('WALLET_MISSING', 'halt', 'no wallet configured');
  const wallet = HotWallet.generate();
  for (const [asset, amount] of Object.entries(config.wallet.fund)) {
    const mint = knownBySymbol(asset)?.mint ?? asset;
    const res = await fetch(`${venueUrl}/__sim/airdrop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet: wallet.address, mint, amount: amount.toString() }) });
    if (!res.ok) throw new KeeperError('PAPER_FUND', 'halt', `the simulator refused to fund the paper wallet with ${asset}: ${await res.text()}`);
  }
  logger.info({ wallet: wallet.address, funded: Object.keys(config.wallet.fund) }, 'fresh paper wallet funded by the simulator');
  return wallet;
}

/** Resolves on SIGINT/SIGTERM or after `seconds`; a second signal exits at once. */
function waitForStop(seconds: number | undefined, logger: Logger): Promise<void> {
  return new Promise((resolveStop) => {
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) {
        logger.warn('second stop request: exiting now');
        process.exit(1);
      }
      stopping = true;
      logger.info({ why }, 'stopping: finishing in-flight executions');
      resolveStop();
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    if (seconds !== undefined) setTimeout(() => stop(`--duration ${seconds}s elapsed`), seconds * 1000).unref();
  });
}
