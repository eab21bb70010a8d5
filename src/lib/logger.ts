import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';
import { prettyDestination } from './consoleFormat.js';

/** The structured logger used everywhere (a pino logger). */
export type Logger = PinoLogger;

/**
 * Field paths pino censors wherever they appear. They are a second line of defence: secrets are never passed to a
 * logger in the first place.
 */
export const REDACT_PATHS: readonly string[] = [
  'apiKey',
  '*.apiKey',
  'secretKey',
  '*.secretKey',
  'privateKey',
  '*.privateKey',
  'keypair',
  '*.keypair',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'authorization',
  '*.authorization',
];

/** Options of the root logger. */
export interface LoggerOptions {
  level?: string;
  /** Where lines go; stderr by default so that CLI output on stdout stays clean. */
  destination?: DestinationStream;
  /** Fields bound on every line, e.g. `{ service: 'jup-keeper' }`. */
  base?: Record<string, unknown>;
  /**
   * `json` (the default): JSON lines. `pretty`: human lines (src/lib/consoleFormat.ts) rendered from the same
   * records. `auto`: pretty when the destination is the default stderr and that is a terminal.
   */
  format?: 'auto' | 'json' | 'pretty';
}

/** What a listener of error lines gets: the message, and the component the logger was bound to. */
export interface LoggedError {
  component?: string | undefined;
  message: string;
}

const errorListeners = new Set<(e: LoggedError) => void>();

/**
 * Calls `fn` for every line logged at error level or above by a logger of `createLogger` (the notifier's `error`
 * events); returns the unsubscribe. `fn` must not log at error level itself.
 */
export function onLoggedError(fn: (e: LoggedError) => void): () => void {
  errorListeners.add(fn);
  return () => errorListeners.delete(fn);
}

/** Whether `createLogger` would write human lines for this format (auto: stderr is a terminal). */
export function wantsPretty(format: LoggerOptions['format']): boolean {
  return format === 'pretty' || (format === 'auto' && process.stderr.isTTY === true);
}

/** Creates the root pino logger with redaction of secret fields. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const pretty = options.destination ? options.format === 'pretty' : wantsPretty(options.format);
  const out = options.destination ?? pino.destination(2);
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: options.base ?? { service: 'jup-keeper' },
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
      hooks: {
        logMethod(args, method, level) {
          if (level >= 50 && errorListeners.size > 0) tellError(this, args);
          method.apply(this, args);
        },
      },
    },
    pretty ? prettyDestination(out) : out,
  );
}

function tellError(logger: PinoLogger, args: unknown[]): void {
  try {
    const found = args.find((a, i) => i > 0 && typeof a === 'string') ?? args[0];
    const msg = typeof found === 'string' ? found : '';
    const first = args[0];
    const err = first instanceof Error ? first : first && typeof first === 'object' ? (first as { err?: unknown }).err : undefined;
    const detail = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
    const component = (logger.bindings() as { component?: unknown }).component;
    const e: LoggedError = { component: typeof component === 'string' ? component : undefined, message: `${msg}${detail ? `: ${detail}` : ''}`.slice(0, 500) };
    for (const l of errorListeners) l(e);
  } catch {
    // a listener's failure must not stop the line from being logged
  }
}

/** A logger that drops everything; for library defaults when no logger was given. */
export const silentLogger: Logger = pino({ level: 'silent' });
