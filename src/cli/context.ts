import type { Command } from 'commander';
import { z } from 'zod';
import { createLogger } from '../lib/logger.js';
import type { JupiterClient } from '../jupiter/client.js';
import { UsageError } from './errors.js';
import { createOutput, type CliOutput } from './output.js';

/** Rate tiers a user may choose with `--tier`. */
export const CLI_TIERS = ['keyless', 'free', 'developer', 'launch', 'pro', 'ultra', 'off'] as const;

/** The global options every command sees, parsed. */
export interface GlobalOptions {
  /** Origin of the Jupiter API. */
  baseUrl: string;
  /** Never printed; the output filter removes it from anything written. */
  apiKey: string | undefined;
  /** Undefined: `free` with a key, `keyless` without (the transport's default). */
  tier: (typeof CLI_TIERS)[number] | undefined;
  /** Per-request timeout, ms. */
  timeoutMs: number | undefined;
  /** Stack traces and request logs on stderr. */
  debug: boolean;
}

const globalsSchema = z.object({
  baseUrl: z.string().min(1, 'must not be empty'),
  apiKey: z.string().optional(),
  tier: z.enum(CLI_TIERS).optional(),
  timeout: z.number().int().positive().optional(),
  debug: z.boolean().optional(),
});

/**
 * What every command module gets: the parsed global options, the Jupiter client built from them on first use, and
 * the output writer. Command files receive it from `main.ts` through their `register...Commands(program, ctx)`.
 */
export interface CliContext {
  /** The global options; valid once commander has parsed the command line (i.e. inside an action). */
  globals(): GlobalOptions;
  /** The Jupiter client for the global options, created on first use. */
  client(): Promise<JupiterClient>;
  /** The only way commands write to the terminal. */
  readonly io: CliOutput;
}

/** True when the environment asks for debug output (`JUPKEEPER_DEBUG=1` or `true`). */
export function debugFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.JUPKEEPER_DEBUG?.trim().toLowerCase();
  return v === '1' || v === 'true';
}

/** Creates the context of one CLI run over `program`, whose global options are read lazily. */
export function createContext(program: Command, env: NodeJS.ProcessEnv = process.env): CliContext {
  let globals: GlobalOptions | undefined;
  let client: JupiterClient | undefined;
  // The key may be known from the environment before (or without) a successful parse; both are redacted.
  const io = createOutput(() => [env.JUPITER_API_KEY?.trim(), globals?.apiKey, rawApiKey(program)?.trim()]);

  const readGlobals = (): GlobalOptions => {
    if (globals) return globals;
    const parsed = globalsSchema.safeParse(program.opts());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(`global option ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
    }
    const o = parsed.data;
    globals = {
      baseUrl: o.baseUrl,
      apiKey: o.apiKey?.trim() || undefined,
      tier: o.tier,
      timeoutMs: o.timeout,
      debug: o.debug === true || debugFromEnv(env),
    };
    return globals;
  };

  return {
    globals: readGlobals,
    client: async () => {
      if (client) return client;
      const g = readGlobals();
      // Loaded on first use: the client's hundred schemas are start-up time only look-ups need.
      const { createJupiterClient } = await import('../jupiter/client.js');
      try {
        client = createJupiterClient({
          baseUrl: g.baseUrl,
          apiKey: g.apiKey,
          tier: g.tier,
          timeoutMs: g.timeoutMs,
          logger: g.debug ? createLogger({ level: 'debug' }) : undefined,
        });
      } catch (err) {
        // The transport refuses a malformed or credentialed base URL with a RangeError that never echoes credentials.
        if (err instanceof RangeError) throw new UsageError(`--base-url: ${err.message}`);
        throw err;
      }
      return client;
    },
    io,
  };
}

function rawApiKey(program: Command): string | undefined {
  const value: unknown = program.getOptionValue('apiKey');
  return typeof value === 'string' ? value : undefined;
}
