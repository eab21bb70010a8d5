import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';

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
}

/** Creates the root pino logger with redaction of secret fields. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: options.base ?? { service: 'jup-keeper' },
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
    },
    options.destination ?? pino.destination(2),
  );
}

/** A logger that drops everything; for library defaults when no logger was given. */
export const silentLogger: Logger = pino({ level: 'silent' });
