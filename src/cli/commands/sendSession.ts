import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import type { KeeperConfig } from '../../config/index.js';
import { configSchema, riskSchema } from '../../config/schema.js';
import { venueRpcUrl } from '../../config/venueUrls.js';
import { isTerminal } from '../../engine/states.js';
import { createExecutor } from '../../execution/keeperExecutor.js';
import { declaredCoSigners } from '../../execution/venueSigners.js';
import type { JupiterClient } from '../../jupiter/client.js';
import { JUPITER_BASE_URL } from '../../jupiter/transport.js';
import { KeeperError } from '../../lib/errors.js';
import { createLogger, silentLogger } from '../../lib/logger.js';
import { sleep } from '../../lib/time.js';
import type { Intent } from '../../sdk/intents.js';
import { SolanaRpc } from '../../solana/rpc.js';
import { HotWallet } from '../../solana/wallet.js';
import { IntentStore, type IntentRecord } from '../../store/intents.js';
import { KillSwitchStore } from '../../store/killSwitch.js';
import { checkRedis, createRedis } from '../../store/redis.js';
import { UsageError } from '../errors.js';
import { CLI_VERSION } from '../program.js';
import { withKeeperRedis, type KeeperLocation } from './redisArgs.js';

/**
 * What `send` and `send clawback` run on: the keeper's own executor (createExecutor, src/execution/keeperExecutor.ts,
 * which `jup-keeper run` uses too), over the deployment's intent ledger. An operator action is recorded as an intent
 * of the instance `_cli` and carried like any other: the venue builds it (buildTransaction, which derives a send's
 * invite code from the wallet and the intent id), the pre-sign guard holds it to the intent (guardPolicyFor with the
 * send and send.clawback product checks, guardTransaction), the kill switch is read before building and before
 * signing, the signature is persisted before the bytes leave, and it is confirmed by signature. Loaded only by those
 * two commands: look-ups do not pay for web3.js and the guard.
 */

/** The ledger instance of intents issued from the command line (no configured instance starts with `_`). */
export const CLI_INSTANCE = '_cli';

/** What `send` and `send clawback` are told, besides the intent. */
export interface SessionOptions {
  /** The keeper config, when `--config` named one (wallet, venue, risk limits, execution settings). */
  config: KeeperConfig | undefined;
  location: KeeperLocation;
  /** `--wallet`: a Solana CLI keypair file. */
  walletFile: string | undefined;
  /** `--rpc-url`. */
  rpcUrl: string | undefined;
  /** The global --base-url: the Jupiter API origin (or a simulator's). */
  baseUrl: string;
  jup: JupiterClient;
  debug: boolean;
  env: NodeJS.ProcessEnv;
}

/** An open session: the wallet, the venue's readers, and the executor over the ledger. */
export interface SendSession {
  wallet: HotWallet;
  jup: JupiterClient;
  /** Records `intent` in the ledger and carries it to a terminal state; returns the record as it ended. */
  execute(intent: Intent): Promise<IntentRecord>;
  close(): Promise<void>;
}

/** The wallet `send` signs with: --wallet, JUPKEEPER_KEYPAIR_PATH, the config's keypairPath, then JUPKEEPER_SECRET_KEY. */
export function loadCliWallet(o: Pick<SessionOptions, 'config' | 'walletFile' | 'env'>): HotWallet {
  const fromConfig = o.config?.wallet.keypairPath && (isAbsolute(o.config.wallet.keypairPath) ? o.config.wallet.keypairPath : resolve(dirname(o.config.file), o.config.wallet.keypairPath));
  const file = o.walletFile ?? (o.env.JUPKEEPER_KEYPAIR_PATH || undefined) ?? fromConfig;
  if (file) return HotWallet.fromFile(file);
  const secret = o.env.JUPKEEPER_SECRET_KEY?.trim();
  if (secret) return HotWallet.fromSecret(secret);
  throw new UsageError('no wallet to sign with: pass --wallet <keypair.json>, or set JUPKEEPER_KEYPAIR_PATH or JUPKEEPER_SECRET_KEY, or name a config whose wallet.keypairPath is set (--config)');
}

/** Whether the venue is the live API: the config says so, or (without a config) the base URL is Jupiter's. */
function isLive(o: SessionOptions): boolean {
  if (o.config) return o.config.venue.kind === 'live';
  return o.baseUrl.replace(/\/+$/, '') === JUPITER_BASE_URL.replace(/\/+$/, '');
}

/** The RPC the transactions go through: --rpc-url, else the venue's (venueRpcUrl: venue.rpcUrl, SOLANA_RPC_URL for live, <base>/rpc for a simulator). */
function rpcUrlOf(o: SessionOptions, live: boolean): string {
  const url = o.rpcUrl ?? venueRpcUrl({ kind: live ? 'live' : 'simulator', rpcUrl: o.config?.venue.rpcUrl }, o.baseUrl, o.env.SOLANA_RPC_URL || undefined);
  if (!url) throw new UsageError('the live venue needs a Solana RPC endpoint: pass --rpc-url or set SOLANA_RPC_URL');
  return url;
}

/** Opens a session: the wallet, Redis (checked as `run` checks it), the venue's declared co-signers, the executor. */
export async function openSendSession(o: SessionOptions, wallet: HotWallet): Promise<SendSession> {
  const live = isLive(o);
  const rpcUrl = rpcUrlOf(o, live);
  const logger = o.debug ? createLogger({ level: 'debug', base: { service: 'jup-keeper-cli' } }) : silentLogger;
  const risk = o.config?.risk ?? riskSchema.parse({});
  const execution = o.config?.execution ?? configSchema.shape.execution.parse(undefined);
  const feeds = o.config?.feeds ?? configSchema.shape.feeds.parse(undefined);
  // The same checks `run` makes, on a fail-fast connection: a live venue needs a Redis that makes the signed record
  // durable before the transaction leaves.
  const health = await withKeeperRedis(o.location.redisUrl, (r) => checkRedis(r, { live, logger: silentLogger }));
  const coSigners = await declaredCoSigners({ kind: live ? 'live' : 'simulator', coSigners: o.config?.venue.coSigners ?? [] }, o.baseUrl);
  const redis: Redis = createRedis(o.location.redisUrl, { name: `${o.location.prefix}:cli` });
  redis.on('error', (err) => logger.debug({ err: err.message }, 'redis connection error'));
  const store = new IntentStore(redis, o.location.prefix, { durability: { mode: health.durability, replicas: health.replicas } });
  const switches = new KillSwitchStore(redis, o.location.prefix);
  const { jup } = o;
  const rpc = new SolanaRpc(rpcUrl);
  const executor = createExecutor(
    {
      store,
      jup,
      rpc,
      wallet,
      killSwitch: () => switches.read(),
      logger: logger.child({ component: 'executor' }),
      // The command prints a send's invite code itself once it landed (see send.ts), so nothing is shown twice.
      notice: () => undefined,
      // Sends and clawbacks value nothing at the feed: no market snapshot is read.
      market: () => Promise.resolve(undefined),
    },
    // No Ultra settings: a send builds no swap.
    { risk, coSigners, extraPrograms: o.config?.venue.allowPrograms, maxPriceAgeMs: feeds.maxPriceAge, maxAttempts: execution.maxAttempts },
  );

  return {
    wallet,
    jup,
    execute: async (intent) => {
      const now = Date.now();
      const id = `cli.${intent.kind}.${randomBytes(8).toString('hex')}`;
      await store.create({ id, instance: CLI_INSTANCE, strategy: `jup-keeper-cli@${CLI_VERSION}`, intent, createdAt: now, deadline: now + execution.deadline });
      const result = await executor.execute(id);
      // Another worker (a running keeper's reconciler) took the intent over: wait for the outcome it records.
      let rec = await store.get(id);
      while (result.superseded && rec && !isTerminal(rec.state)) {
        await sleep(500);
        rec = await store.get(id);
      }
      if (!rec) throw new KeeperError('INTENT_MISSING', 'halt', `intent ${id} vanished from the ledger`);
      return rec;
    },
    close: async () => {
      await store.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
