import { Option, type Command } from 'commander';
import { createLogger } from '../../lib/logger.js';
import { loadConfigWithStrategies } from '../strategies.js';
import { formatLookedUp } from '../symbols.js';
import { intInRange } from '../args.js';
import type { CliContext } from '../context.js';
import type { RunOptions } from './runKeeper.js';

export type { RunOptions } from './runKeeper.js';


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
    .option('--fresh', "paper on the in-process simulator: clear the prefix's records instead of keeping the earlier sessions' intents and realised P&L")
    .addOption(new Option('--log-format <format>', 'json: JSON lines; pretty: human lines (default: the config\'s logging.format, auto: pretty when stderr is a terminal)').choices(['json', 'pretty', 'auto']))
    .option('--yes', 'start a live keeper without asking for confirmation (it still prints the limits)')
    .addOption(new Option('--dashboard-port <port>', 'port of the dashboard (default: the config, then 8787; 0: any free port, logged)').argParser(intInRange('--dashboard-port', 0, 65_535)))
    .option('--dashboard-host <host>', 'address the dashboard listens on (default: the config, then 127.0.0.1); any other than loopback needs DASHBOARD_TOKEN')
    .action(async (opts: RunOptions) => {
      // --wallet counts as the configured wallet, exactly like JUPKEEPER_KEYPAIR_PATH.
      const env = opts.wallet ? { ...process.env, JUPKEEPER_KEYPAIR_PATH: opts.wallet } : process.env;
      const { config, threads, close, symbols } = await loadConfigWithStrategies(opts.config, env, { lookUpSymbols: true, venueUrl: opts.venueUrl });
      try {
        const logger = createLogger({ level: process.env.LOG_LEVEL ?? config.logging.level, format: opts.logFormat ?? config.logging.format });
        // Once, at start-up: which token each symbol outside the known table turned out to be.
        for (const s of symbols) logger.info({ symbol: s.symbol, mint: s.mint, decimals: s.decimals, verified: s.verified }, `symbol ${formatLookedUp(s)} in the venue's token list`);
        // Loaded on demand: the daemon's modules (BullMQ, web3.js, the simulator) cost a second of start-up that
        // look-up commands should not pay.
        const { runKeeper } = await import('./runKeeper.js');
        await runKeeper(config, opts, logger, threads);
      } finally {
        await close();
      }
    });
}
