// The container's health check (the Dockerfile's HEALTHCHECK, `node dist/src/cli/healthcheck.js`): asks the keeper's
// dashboard in the same container for /healthz and exits 0 when it answers healthy, 1 otherwise. A script of its own,
// not a `jup-keeper` command: Docker runs it every interval, and it must not load the CLI's modules each time.
// There is no curl in the image, and no shell in the check: it reads the port and the token from the environment.
//   DASHBOARD_PORT   the dashboard's port (default 8787; set it when `run` gets another --dashboard-port)
//   DASHBOARD_TOKEN  sent as a bearer token when set: a dashboard on a non-loopback address requires it
// /healthz judges the workers from their heartbeats in Redis, so a keeper whose workers crashed or hung fails it
// while its process, and its HTTP server, are still up.

/** How long the check waits for an answer, ms (under the Dockerfile's --timeout). */
const TIMEOUT_MS = 5_000;

const raw = process.env.DASHBOARD_PORT?.trim() || '8787';
const port = Number(raw);
const token = process.env.DASHBOARD_TOKEN?.trim() || undefined;

if (!Number.isInteger(port) || port < 1 || port > 65_535) {
  console.error(`unhealthy: DASHBOARD_PORT must be a port number, got ${JSON.stringify(raw)}`);
  process.exitCode = 1;
} else {
  // 127.0.0.1 reaches a dashboard bound to 0.0.0.0 too; without a token the dashboard answers only a loopback Host.
  const url = `http://127.0.0.1:${port}/healthz`;
  try {
    const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = await res.text();
    if (res.ok) {
      console.log(`healthy: ${url} answered ${res.status}`);
    } else {
      // The report names the problem (the body of a 503); a 401 means the token is missing or wrong.
      console.error(`unhealthy: ${url} answered ${res.status}: ${body.slice(0, 500)}`);
      process.exitCode = 1;
    }
  } catch (err) {
    console.error(`unhealthy: ${url} did not answer: ${failure(err)}`);
    process.exitCode = 1;
  }
}

/** Why a request failed: fetch says only "fetch failed" and keeps the reason (ECONNREFUSED...) in its cause. */
function failure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ((err.cause as NodeJS.ErrnoException).code ?? err.cause.message) : undefined;
  return cause ? `${err.message} (${cause})` : err.message;
}
