import { InvalidArgumentError, Option, type Command } from 'commander';
import { createLogger } from '../../lib/logger.js';
import { parseApiKeySpec, SIM_TIERS, type SimTier } from '../../sim/http/gateway.js';
import { intInRange } from '../args.js';
import type { CliContext } from '../context.js';

interface SimOptions {
  port: number;
  host: string;
  seed: number;
  clockSpeed: number;
  tier: SimTier;
  apiKey?: string[];
}

/**
 * Registers `sim`: the Jupiter-compatible simulator as a server, printing its two URLs (the Jupiter API origin and
 * the Solana JSON-RPC endpoint). Runs until SIGINT/SIGTERM.
 */
export function registerSimCommand(program: Command, ctx: CliContext): void {
  program
    .command('sim')
    .description('run the Jupiter-compatible simulator: Jupiter API paths at the root, Solana JSON-RPC at /rpc')
    .addOption(new Option('--port <port>', 'port to listen on (0 = any free port)').argParser(intInRange('--port', 0, 65_535)).default(8899))
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .addOption(new Option('--seed <n>', 'seed of prices and routes: same seed, same market').argParser(intInRange('--seed', 0, 2 ** 31)).default(1))
    .addOption(new Option('--clock-speed <x>', 'simulated seconds per real second (0 freezes the clock)').argParser(parseSpeed).default(1))
    .addOption(new Option('--tier <tier>', 'rate-limit tier of the simulated gateway (of keys given without one)').choices(SIM_TIERS).default('off'))
    .addOption(new Option('--api-key <key...>', 'accepted API keys, KEY or KEY:TIER (e.g. jup_a:pro jup_b:ultra); any other key gets 401 (none: keys are not checked)').argParser(collectKeySpec))
    .action(async (opts: SimOptions) => {
      const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', base: { service: 'jup-keeper-sim' } });
      const { startSimulator } = await import('../../sim/server.js');
      const sim = await startSimulator({ port: opts.port, host: opts.host, seed: opts.seed, clockSpeed: opts.clockSpeed, tier: opts.tier, apiKeys: opts.apiKey ?? [], logger });
      ctx.io.out(`jupiter api: ${sim.url}\nsolana rpc:  ${sim.rpcUrl}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await sim.close();
    });
}

/** Global options of the program that take a value (what may stand between the program name and a command). */
const GLOBAL_VALUE_OPTIONS = new Set(['--base-url', '--api-key', '--tier', '--timeout']);

/**
 * Whether a command line (without node and the script) runs `sim`. The program's global `--tier` and `--api-key`
 * (the client's) would otherwise take `sim --tier ultra --api-key a:pro` for themselves: when this is true, the
 * caller makes options positional (`program.enablePositionalOptions()`), so that those after `sim` are the gateway's.
 */
export function invokesSim(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) return arg === 'sim';
    if (GLOBAL_VALUE_OPTIONS.has(arg)) i += 1;
  }
  return false;
}

/** Collects `--api-key` values, refusing a `KEY:TIER` whose tier the gateway does not know. */
function collectKeySpec(value: string, previous: string[] | undefined): string[] {
  try {
    parseApiKeySpec(value);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
  return [...(previous ?? []), value];
}

function parseSpeed(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 10_000) throw new InvalidArgumentError(`--clock-speed must be a number from 0 to 10000, got ${JSON.stringify(value)}`);
  return n;
}
