import { dirname, isAbsolute, resolve } from 'node:path';
import type { KeeperConfig } from '../../config/index.js';
import type { IsolatedDecider } from '../../engine/evaluate.js';
import { KeeperError } from '../../lib/errors.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { knownBySymbol } from '../../lib/mints.js';
import type { RunningSimulator } from '../../sim/server.js';
import type { HotWallet } from '../../solana/wallet.js';
import { checkRedis, DEFAULT_REDIS_URL, safeRedisUrl } from '../../store/redis.js';
import { probeRedis, startPrivateRedis, type PrivateRedis } from '../../store/privateRedis.js';
import { connectReadOnly } from './redisArgs.js';
import { dashboardSettings, MIN_TOKEN_LENGTH } from '../../dashboard/settings.js';

/** Options of `run`. */
export interface RunOptions {
  config: string;
  venueUrl?: string;
  wallet?: string;
  duration?: number;
  /** Paper on the in-process simulator: clear the prefix's history instead of keeping it (see rollOverPaperSession). */
  fresh?: boolean;
  role: 'all' | 'scheduler' | 'worker';
  prefix?: string;
  redisUrl?: string;
  /** Console format: overrides the config's `logging.format` (auto: human lines when stderr is a terminal). */
  logFormat?: 'json' | 'pretty' | 'auto';
  /** Start a live keeper without asking (it still prints what it will do). */
  yes?: boolean;
  /** The dashboard's address and port (over the config's `dashboard:`). */
  dashboardHost?: string;
  dashboardPort?: number;
}

/** Runs the keeper daemon until SIGINT/SIGTERM or --duration; see `registerRunCommand`. */
export async function runKeeper(config: KeeperConfig, opts: RunOptions, logger: Logger, strategyThreads?: ReadonlyMap<string, IsolatedDecider>): Promise<void> {
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async (): Promise<void> => {
    while (cleanups.length > 0) await cleanups.pop()!().catch((err: unknown) => logger.error({ err }, 'shutdown step failed'));
  };
  // Fix: the handlers were installed only once the keeper had started, so a SIGTERM during start-up (an orchestrator
  // stopping a slow start, seen on a loaded machine) killed the process with nothing closed. Now a stop requested
  // while starting is kept, and the keeper shuts down cleanly as soon as the start completes.
  const stopRequested = waitForStop(opts.duration, logger);
  try {
    // Before anything starts: a dashboard that would be open to the network without a token is refused at once.
    const dashboard = dashboardSettings({ host: opts.dashboardHost, port: opts.dashboardPort }, config.dashboard, config.env.DASHBOARD_TOKEN);
    if (dashboard?.token !== undefined && dashboard.token.length < MIN_TOKEN_LENGTH) logger.warn(`DASHBOARD_TOKEN is shorter than ${MIN_TOKEN_LENGTH} characters: use a long random one (openssl rand -hex 24)`);
    const redisUrl = await resolveRedis(config, opts, logger, (p) => cleanups.push(() => p.stop()));
    await preflightRedis(redisUrl, config.venue.kind === 'live');
    // Loaded only once Redis passed: the daemon's modules (BullMQ, web3.js, the simulator) take seconds to load,
    // which a refused start should not wait for.
    const [{ startKeeper }, { venueUrls }] = await Promise.all([import('../../main.js'), import('../../config/venueUrls.js')]);
    let sim: RunningSimulator | undefined;
    let venueUrl = opts.venueUrl ?? config.venue.url;
    if (config.venue.kind === 'simulator' && !venueUrl) {
      // The simulator (LiteSVM, every product's programs) is loaded only when this process runs it.
      const { startSimulator } = await import('../../sim/server.js');
      sim = await startSimulator({ ...config.venue.simulator, logger: logger.child({ component: 'sim' }) });
      cleanups.push(() => sim!.close());
      venueUrl = sim.url;
      logger.info({ url: sim.url, rpc: sim.rpcUrl }, 'simulator started in-process');
    }
    const urls = venueUrls(config, venueUrl);
    const wallet = await loadWallet(config, opts, urls.venueUrl, logger);
    if (config.venue.kind === 'live') {
      const { confirmLiveStart } = await import('../liveConfirm.js');
      await confirmLiveStart(config, { wallet: wallet.address, venueUrl: urls.venueUrl, rpcUrl: urls.rpcUrl, yes: opts.yes === true }, { input: process.stdin, output: process.stderr });
    }
    // A paper start runs a new simulator and wallet: history is kept unless --fresh (see rollOverPaperSession).
    const paperSession = sim !== undefined && config.wallet.paper && !opts.wallet;
    const freshSession = paperSession && opts.fresh === true;
    const newPaperSession = paperSession && !freshSession;
    const keeper = await startKeeper({ config, role: opts.role, redisUrl, prefix: opts.prefix ?? config.redis.prefix, venueUrl: urls.venueUrl, rpcUrl: urls.rpcUrl, wallet, logger, freshSession, newPaperSession, strategyThreads, dashboard });
    cleanups.push(() => keeper.close());
    await stopRequested;
  } finally {
    await cleanup();
  }
}

/**
 * The Redis URL to use: the flag, the config, REDIS_URL, then the default. A Redis that answers but refuses the
 * credentials or the database is an error naming it. Only a paper keeper with nothing configured and nothing on the
 * default address gets a private redis-server: its data is deleted on exit, so a live keeper never runs on it.
 * `defaultUrl` is for tests (a machine whose 6379 is taken).
 */
export async function resolveRedis(config: KeeperConfig, opts: Pick<RunOptions, 'redisUrl'>, logger: Logger, onPrivate: (p: PrivateRedis) => void, defaultUrl = DEFAULT_REDIS_URL): Promise<string> {
  const explicit = opts.redisUrl ?? config.redis.url ?? config.env.REDIS_URL;
  const url = explicit ?? defaultUrl;
  const probe = await probeRedis(url);
  if (probe.ok) return url;
  if (probe.problem === 'auth') {
    throw new KeeperError('REDIS_AUTH', 'halt', `Redis at ${safeRedisUrl(url)} refuses the credentials (${probe.message}): set the password in the Redis URL (REDIS_URL=redis://:PASSWORD@host:6379, or redis://USER:PASSWORD@host:6379 with an ACL user)`);
  }
  if (probe.problem === 'db') throw new KeeperError('REDIS_DB', 'halt', probe.message);
  if (explicit) throw new KeeperError('REDIS_DOWN', 'halt', `no Redis answers at ${safeRedisUrl(url)} (${probe.message}): start it, or fix redis.url / REDIS_URL / --redis-url`);
  if (config.venue.kind === 'live') {
    throw new KeeperError('REDIS_DOWN', 'halt', `no Redis answers at ${safeRedisUrl(url)} (${probe.message}): a live keeper needs its own Redis with AOF (set REDIS_URL or redis.url); it never starts the private throwaway one`);
  }
  const p = await startPrivateRedis();
  onPrivate(p);
  logger.warn({ url: p.url }, `no Redis at ${defaultUrl}: started a private redis-server for this paper run (its data is removed on exit)`);
  return p.url;
}

/**
 * The start-up checks of `checkRedis` on a short-lived, fail-fast connection, before anything else starts: a Redis
 * the keeper would refuse is reported within a second. `startKeeper` checks again (and logs the warnings) itself.
 */
async function preflightRedis(url: string, live: boolean): Promise<void> {
  const redis = await connectReadOnly(url);
  try {
    await checkRedis(redis, { live, logger: silentLogger });
  } finally {
    redis.disconnect();
  }
}

async function loadWallet(config: KeeperConfig, opts: RunOptions, venueUrl: string, logger: Logger): Promise<HotWallet> {
  const { HotWallet } = await import('../../solana/wallet.js');
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

/** The same signal twice within this many ms is one stop request delivered twice (process group, then npm). */
const DUPLICATE_SIGNAL_MS = 1_000;

/** Resolves on SIGINT/SIGTERM or after `seconds`; a second signal exits at once. */
function waitForStop(seconds: number | undefined, logger: Logger): Promise<void> {
  return new Promise((resolveStop) => {
    let stopping: { why: string; at: number } | undefined;
    const stop = (why: string) => {
      if (stopping) {
        // Fix: under `npm start` (which execs the keeper, see package.json) one Ctrl-C reaches the keeper twice
        // within milliseconds: from the terminal (to the whole process group) and forwarded by npm. That duplicate
        // is not a second request; only a repeat after DUPLICATE_SIGNAL_MS (or another signal) exits at once.
        if (why === stopping.why && Date.now() - stopping.at < DUPLICATE_SIGNAL_MS) return;
        logger.warn('second stop request: exiting now');
        process.exit(1);
      }
      stopping = { why, at: Date.now() };
      logger.info({ why }, 'stopping: finishing in-flight executions');
      resolveStop();
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    if (seconds !== undefined) setTimeout(() => stop(`--duration ${seconds}s elapsed`), seconds * 1000).unref();
  });
}
