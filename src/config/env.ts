import { z } from 'zod';

const optionalString = z.string().optional().transform((v) => (v === '' ? undefined : v));

/**
 * The environment variables jup-keeper reads. Secrets (the API key, the wallet's secret key) come only from here
 * (or .env, loaded by the CLI), never from a config file.
 */
export const envSchema = z.object({
  JUPITER_API_KEY: optionalString,
  /** The dashboard's token: required to listen on an address other than loopback; every page and API then needs it. */
  DASHBOARD_TOKEN: optionalString,
  JUPITER_BASE_URL: optionalString.pipe(z.string().url().optional()),
  SOLANA_RPC_URL: optionalString.pipe(z.string().url().optional()),
  REDIS_URL: optionalString.pipe(z.string().regex(/^rediss?:\/\//, 'expected a redis:// URL').optional()),
  JUPKEEPER_KEYPAIR_PATH: optionalString,
  JUPKEEPER_SECRET_KEY: optionalString,
  LOG_LEVEL: optionalString,
  /** Telegram Bot API token of `notify.telegram` (a secret: never in the config file). */
  TELEGRAM_BOT_TOKEN: optionalString,
  /** Discord webhook URL of `notify.discord` (it carries the webhook's secret). */
  DISCORD_WEBHOOK_URL: optionalString.pipe(z.string().url().optional()),
  /** URL of `notify.webhook` when it is not in the config (a URL holding a secret). */
  NOTIFY_WEBHOOK_URL: optionalString.pipe(z.string().url().optional()),
});

/** The parsed environment. Holds secrets: never log it. */
export type KeeperEnv = z.output<typeof envSchema>;
