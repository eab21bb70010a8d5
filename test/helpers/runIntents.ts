// A keeper's executor in a process of its own, for the exactly-once product suite: run with the project's tsx runner
// (`node bin/run-ts.js test/helpers/runIntents.ts --redis-url URL --prefix P --venue URL --job ID=WALLET_FILE ...`),
// it executes every job's intent at once (each with the executor of its wallet, wired as `jup-keeper run` wires it)
// and prints one JSON line with how each ended. JUPKEEPER_CRASH_AT / JUPKEEPER_PAUSE_AT / JUPKEEPER_FAULT_ARRIVALS
// (src/execution/faultPoints.ts) kill or pause it at a step; logs are JSON lines on stderr.
import { parseArgs } from 'node:util';
import { createLogger } from '../../src/lib/logger.js';
import { HotWallet } from '../../src/solana/wallet.js';
import { intentExecutors, mintsOf } from './intentExecutor.js';

const { values } = parseArgs({
  options: {
    'redis-url': { type: 'string' },
    prefix: { type: 'string' },
    venue: { type: 'string' },
    job: { type: 'string', multiple: true },
  },
});
const redisUrl = values['redis-url'];
const prefix = values.prefix;
const venueUrl = values.venue;
if (!redisUrl || !prefix || !venueUrl || !values.job?.length) {
  process.stderr.write('usage: runIntents.ts --redis-url URL --prefix P --venue URL --job ID=WALLET_FILE [--job ...]\n');
  process.exit(2);
}
const jobs = values.job.map((j) => {
  const at = j.indexOf('=');
  return { id: j.slice(0, at), wallet: HotWallet.fromFile(j.slice(at + 1)) };
});

const logger = createLogger({ level: 'debug', base: { service: 'run-intents' } });
const world = await intentExecutors({ redisUrl, prefix, venueUrl, logger });
const records = await Promise.all(jobs.map((j) => world.store.get(j.id)));
await world.refreshMarket([...new Set(records.flatMap((r) => (r ? mintsOf(r.intent) : [])))]);
logger.info({ jobs: jobs.length }, 'executing');
const results = await Promise.all(
  jobs.map(async (j) => {
    try {
      return { id: j.id, ...(await world.executorOf(j.wallet).execute(j.id)) };
    } catch (err) {
      logger.error({ intent: j.id, err: err instanceof Error ? err.message : String(err) }, 'execution threw');
      return { id: j.id, error: err instanceof Error ? err.message : String(err) };
    }
  }),
);
process.stdout.write(`${JSON.stringify({ results })}\n`);
await world.close();
process.exit(0);
