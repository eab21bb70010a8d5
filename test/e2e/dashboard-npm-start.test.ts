// Issue 23, items 5, 7 and 10, on `npm start` as a person runs it (the real npm and start script, a fresh shell's
// environment, the human console): with 127.0.0.1:8787 taken by another keeper, the dashboard listens on another port
// and the banner prints its URL; `status` in another shell names it; the page there is this keeper's, loads with the
// network cut off but for this machine and fails no request, Bull Board included; a kill switch typed in another
// shell shows in the console. REDIS_URL names a database of this test's own (npm-start uses 0, operator-cli 12,
// paper-all 13), the one difference from a person's shells.
//
// With JK_DASHBOARD_SCREENSHOT=<file> it also waits for a fuller page (open orders, a lend position, a longer chart)
// and saves a screenshot of it there: that is how docs/dashboard.png, the README's picture, is taken.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/e2e.js';
import { ROOT } from '../helpers/keeper.js';
import { alive, descendants, freshShellEnv, spawnNpmStart, type NpmStart } from '../helpers/npmStart.js';
import { CHROMIUM, CHROMIUM_ARGS, getJson, offline } from '../dashboard/helpers.js';

const REDIS_DB = 11;
const PREFIX = 'jk-paper';
/** The README's address of the dashboard. */
const DEFAULT_PORT = 8787;
const SCREENSHOT = process.env.JK_DASHBOARD_SCREENSHOT;

function redisUrl(): string {
  const url = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  url.pathname = `/${REDIS_DB}`;
  return url.toString();
}

/** `npx jup-keeper <args>` typed in another shell in the project directory. */
function npx(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('npx', ['jup-keeper', ...args], { cwd: ROOT, env: { ...freshShellEnv(), REDIS_URL: redisUrl() }, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/** Another keeper's dashboard on 127.0.0.1:8787, unless something holds that port already (then it is taken anyway). */
async function takeDefaultPort(): Promise<Server | undefined> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('another keeper\n'));
  return new Promise((done, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? done(undefined) : fail(err)));
    server.listen(DEFAULT_PORT, '127.0.0.1', () => done(server));
  });
}

interface Status {
  dashboardUrl: string | null;
  wallet: { address: string } | null;
  orders: { trigger: unknown[] } | null;
  positions: { lend: unknown[] } | null;
}

describe('npm start with the dashboard port taken', () => {
  let npm: NpmStart | undefined;
  let browser: Browser | undefined;
  let holder: Server | undefined;
  afterAll(async () => {
    await browser?.close();
    if (npm?.proc.pid) for (const pid of [npm.proc.pid, ...descendants(npm.proc.pid)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await new Promise<void>((r) => (holder ? holder.close(() => r()) : r()));
  });

  it('serves the dashboard on another port, prints its URL, and the page there needs nothing from elsewhere', { timeout: SCREENSHOT ? 420_000 : 240_000 }, async () => {
    // This database is the test's: start from nothing.
    const admin = new Redis(redisUrl());
    try {
      const keys = await admin.keys(`${PREFIX}:*`);
      if (keys.length > 0) await admin.del(...keys);
    } finally {
      admin.disconnect();
    }
    holder = await takeDefaultPort();

    const run = (npm = spawnNpmStart({ REDIS_URL: redisUrl() }, ['--log-format', 'pretty']));
    const text = () => run.stderr.join('');
    const tail = () => `stderr tail:\n${text().slice(-3000)}`;
    // The banner, between its two rules: the dashboard's URL in it, and why it is not the README's.
    const banner = await waitUntil(
      `the banner; ${tail()}`,
      () => {
        if (run.exitedAt() !== undefined) throw new Error(`npm start exited early; ${tail()}`);
        return /^(={78})\n[\s\S]*?\n\1$/m.exec(text())?.[0];
      },
      120_000,
    );
    const url = / dashboard {2}(http:\/\/127\.0\.0\.1:(\d+)\/) {2}\(port 8787 is in use, another keeper\?\)$/m.exec(banner);
    expect(url, banner).not.toBeNull();
    const dashboard = url![1]!;
    expect(Number(url![2])).not.toBe(DEFAULT_PORT);
    const wallet = / wallet {5}(\w+)$/m.exec(banner)![1]!;

    // That URL is this keeper's, and `status` in another shell names it.
    expect((await getJson<Status>(dashboard, '/api/status')).wallet?.address).toBe(wallet);
    const statusJson = await npx('status', '--json');
    expect(statusJson.code, statusJson.stderr).toBe(0);
    expect((JSON.parse(statusJson.stdout) as Status).dashboardUrl).toBe(dashboard);
    expect((await npx('status')).stdout).toMatch(new RegExp(`^dashboard\\s+${dashboard.replace(/[.:/]/g, '\\$&')}$`, 'm'));

    // The page, with nothing but this machine reachable.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems = await offline(page);
    await page.goto(dashboard);
    await expect.poll(() => page.getByTestId('venue').textContent(), { timeout: 20_000 }).toContain('PAPER');
    await expect.poll(() => page.locator('#wallet-address').textContent()).toBe(wallet);
    for (const id of ['dca-sol-usdc', 'ladder-sol-usdc', 'idle-jupusd', 'edge-sol-windows']) await expect.poll(() => page.locator(`[data-testid="strategies"] tr[data-strategy="${id}"]`).count()).toBe(1);
    // A swap the page shows filled.
    await expect.poll(() => page.locator('[data-testid="intents"] tr[data-state="landed"]').filter({ hasText: 'fill' }).count(), { timeout: 120_000 }).toBeGreaterThan(0);
    const keeper = (await page.locator('#keeper').textContent()) ?? '';
    expect(keeper.match(/since|started/g)).toEqual(['since']);

    if (SCREENSHOT) {
      // A fuller page for the README: resting limit orders, a lend deposit, the chart over a few samples (every 30 s).
      await waitUntil(
        'open limit orders, a lend position and five chart points',
        async () => {
          const [st, points] = await Promise.all([getJson<Status>(dashboard, '/api/status'), getJson<unknown[]>(dashboard, '/api/series')]);
          return (st.orders?.trigger.length ?? 0) > 0 && (st.positions?.lend.length ?? 0) > 0 && points.length >= 5;
        },
        300_000,
        2_000,
      );
      // The page's next refresh shows them.
      await expect.poll(() => page.locator('[data-testid="orders"] td').filter({ hasText: 'lend' }).count(), { timeout: 20_000 }).toBeGreaterThan(0);
      await page.screenshot({ path: resolve(ROOT, SCREENSHOT), fullPage: true });
    }
    expect(problems).toEqual([]);
    await page.close();

    // Bull Board too (its template asks Google Fonts for a font; the dashboard serves it without).
    const board = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const boardProblems = await offline(board);
    await board.goto(new URL('/queues', dashboard).href);
    for (const q of ['feeds', 'evaluate', 'execute', 'keeper']) await expect.poll(() => board.getByText(q, { exact: true }).count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await board.waitForLoadState('networkidle');
    expect(boardProblems).toEqual([]);

    // A kill switch typed in another shell shows in this console, and its release.
    const on = await npx('kill-switch', 'on', '--reason', 'from another shell');
    expect(on.code, on.stderr).toBe(0);
    await waitUntil(`the engaged line; ${tail()}`, () => /^\d\d:\d\d:\d\d KILL SWITCH ENGAGED \(halt\) by cli: from another shell$/m.test(text()) || undefined, 20_000);
    expect((await npx('kill-switch', 'off')).code).toBe(0);
    await waitUntil(`the released line; ${tail()}`, () => /^\d\d:\d\d:\d\d kill switch released by cli$/m.test(text()) || undefined, 20_000);

    run.proc.kill('SIGTERM');
    expect(await run.exited, tail()).toBe(0);
  });
});
