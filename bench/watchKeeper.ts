// `jup-keeper run` with one more strategy registered: bench-watch, which watches the mints, prediction categories
// and markets of its params and decides nothing. The built-in strategies watch no prediction category, and the
// price benchmark needs instances that do; everything else is the CLI's own runKeeper, unchanged.
// Usage: node bin/run-ts.js bench/watchKeeper.ts --config <file> --redis-url <url> --prefix <p> [--role all]
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { runKeeper } from '../src/cli/commands/runKeeper.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/lib/logger.js';
import { defineStrategy } from '../src/sdk/index.js';
import { mintParam } from '../src/sdk/symbols.js';
import { createRegistry, dcaSwap, thresholdRebalance } from '../strategies/index.js';

/** Params of bench-watch. */
const watchParams = z.strictObject({
  mints: z.array(mintParam).default([]),
  categories: z.array(z.string()).default([]),
  markets: z.array(z.string()).default([]),
});

/** Watches what its params name and decides nothing: a reader of the shared feeds. */
export const benchWatch = defineStrategy({
  name: 'bench-watch',
  version: '1.0.0',
  description: 'watches mints, prediction categories and markets; decides nothing (benchmarks of the feeds)',
  params: watchParams,
  watches: (p) => ({ mints: p.mints, predictionCategories: p.categories, predictionMarkets: p.markets }),
  decide: () => [],
});

const { values } = parseArgs({
  options: { config: { type: 'string' }, 'redis-url': { type: 'string' }, prefix: { type: 'string' }, role: { type: 'string', default: 'all' } },
});
if (!values.config) throw new Error('--config is required');
const config = loadConfig(values.config, createRegistry([dcaSwap, thresholdRebalance, benchWatch]));
const logger = createLogger({ level: process.env.LOG_LEVEL ?? config.logging.level });
const role = z.enum(['all', 'scheduler', 'worker']).parse(values.role);
await runKeeper(config, { config: values.config, role, prefix: values.prefix, redisUrl: values['redis-url'] }, logger);
