import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';

/** The real binary, as users run it. */
const BIN = fileURLToPath(new URL('../../bin/jup-keeper.js', import.meta.url));

/** What one CLI run produced. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node bin/jup-keeper.js ...args` as a child process. The environment is the test's minus anything that would
 * change the CLI's behaviour (JUPITER_*, JUPKEEPER_DEBUG, NODE_OPTIONS), plus `env`; the working directory is the
 * system temp dir so that a developer's `.env` is not loaded.
 */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  const base = { ...process.env };
  for (const key of ['JUPITER_API_KEY', 'JUPITER_BASE_URL', 'JUPKEEPER_DEBUG', 'NODE_OPTIONS', 'LOG_LEVEL']) delete base[key];
  return new Promise((resolve) => {
    // The timeout only keeps a hung CLI from hanging the suite: on a loaded machine, with several test files starting
    // CLIs at once, a healthy start can take many seconds, so it is far above any normal run.
    execFile(process.execPath, [BIN, ...args], { cwd: tmpdir(), env: { ...base, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The global options that point the CLI at a fixture server: no client-side rate limit, a short timeout. */
export function against(url: string): string[] {
  return ['--base-url', url, '--tier', 'off', '--timeout', '3000'];
}

/** True when a stack frame line ("    at fn (file:line)") appears in the text. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at\s/m.test(text);
}

/** A fixture server owned by one test, and a `cli` that runs the binary against it. */
export interface CliFixture {
  server: FixtureServer;
  cli: (...args: string[]) => Promise<CliRun>;
}

/**
 * Starts a fixture server for one test and closes it when the test ends. Each test owns its server, so the tests of
 * a file can run concurrently (child processes dominate the suite's time).
 */
export async function serve(onTestFinished: (fn: () => Promise<void>) => void): Promise<CliFixture> {
  const server = await startFixtureServer();
  onTestFinished(() => server.close());
  return { server, cli: (...args) => runCli([...args, ...against(server.url)]) };
}
