import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { cliJson, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { useKeeperEnv, type KeeperProcess } from '../helpers/keeper.js';
import { CHROMIUM, CHROMIUM_ARGS, getJson, offline, spawnWithDashboard } from './helpers.js';

interface Lineage {
  id: string;
  state: string;
  job: { state: string } | null;
  signatures: string[];
  outcome: { kind: string } | null;
}

describe('the status page of a running paper keeper, in a browser', () => {
  // The simulator's clock runs 5x: the ladder's limit orders fill within the run.
  const world = useKeeperEnv('dashboard-browser', { sim: { clockSpeed: 5 } });
  let browser: Browser | undefined;
  let keeper: KeeperProcess | undefined;
  afterAll(async () => {
    await browser?.close();
    if (keeper) await stopKeeper(keeper).catch(() => undefined);
  });

  it('shows the venue, strategies, intents with their lineage and the chart, and trips the kill switch with its button', async () => {
    const prefix = 'dash-browser';
    const run = await spawnWithDashboard({ dir: world.dir, sim: world.sim, redisUrl: world.redis.url, prefix });
    keeper = run.keeper;
    // What the page is to show, waited for through the API it reads: a settled swap with its whole lineage, and a chart.
    await waitUntil(
      'a landed swap with job, signature and fill',
      async () => (await getJson<Lineage[]>(run.url, '/api/intents')).find((i) => i.state === 'landed' && i.job?.state === 'completed' && i.signatures.length > 0 && i.outcome?.kind === 'fill'),
      90_000,
    );
    await waitUntil('five chart points', async () => (await getJson<unknown[]>(run.url, '/api/series')).length >= 5, 60_000);
    // The ladder's orders open on the venue (the screenshot shows them).
    await waitUntil('open limit orders', async () => ((await getJson<{ orders: { trigger: unknown[] } | null }>(run.url, '/api/status')).orders?.trigger.length ?? 0) > 0, 60_000);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // The network is this machine only: a request for anything elsewhere (fonts, scripts) is refused and counted.
    const problems = await offline(page);
    page.on('dialog', (d) => void d.accept());
    await page.goto(run.url);

    await expect.poll(() => page.getByTestId('venue').textContent(), { timeout: 20_000 }).toContain('PAPER');
    await expect.poll(() => page.locator('#wallet-address').textContent()).toBe(run.wallet);
    await expect.poll(() => page.getByTestId('wallet-value').textContent()).toMatch(/^\$[\d,]+\.\d\d$/);
    // Each strategy with its last decision.
    for (const id of ['dca-sol-usdc', 'ladder-sol-usdc']) {
      const row = page.locator(`[data-testid="strategies"] tr[data-strategy="${id}"]`);
      await expect.poll(() => row.count()).toBe(1);
      await expect.poll(() => row.locator('td').nth(3).textContent()).toMatch(/ago$/);
    }
    // An intent's lineage: landed, its job completed, its transaction's signature, and the fill it came to.
    const landed = page.locator('[data-testid="intents"] tr[data-state="landed"]').filter({ hasText: 'fill' }).first();
    await expect.poll(() => landed.count(), { timeout: 20_000 }).toBe(1);
    // The executor records `landed` before its job returns, so the row may first show the job active: the page's
    // next refresh (every few seconds, later on a loaded keeper) shows it completed.
    await expect.poll(() => landed.locator('td.job').textContent(), { timeout: 20_000 }).toContain('completed');
    expect(await landed.locator('td.tx .mono').first().getAttribute('title')).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(await landed.locator('td.outcome').textContent()).toMatch(/fill \d[\d.]* SOL → \d[\d.]* USDC/);
    // The chart: a wallet-value line through every recorded point.
    const d = await page.getByTestId('chart-value').getAttribute('d');
    expect((d ?? '').match(/[ML]/g)?.length ?? 0).toBeGreaterThanOrEqual(3);
    expect(await page.getByTestId('chart-pnl').count()).toBe(1);
    // Its P&L line says its scope: the books' realised P&L of every session.
    expect(await page.locator('.legend').first().textContent()).toContain('realised P&L, every session');

    // The keeper: running since when, said once.
    const keeperCard = (await page.locator('#keeper').textContent()) ?? '';
    expect(keeperCard).toMatch(/keeper: running since \S.* \(\d+ (s|min) ago\)/);
    // Each count says its scope: the session (this run of the keeper) beside every session's intents and the UTC day.
    expect(keeperCard).toMatch(/session \d+ \(this run\): \d+ trade\(s\), \d+ intent\(s\)/);
    expect(keeperCard).toMatch(/intents, every session: \d+/);
    expect(keeperCard).toMatch(/today \(UTC day\): /);
    expect(await page.getByTestId('pnl-scope').textContent()).toMatch(/^· session \d+$/);
    expect(keeperCard.match(/since|started/g)).toEqual(['since']);

    // The button engages the kill switch (halt, reason "dashboard"), as `jup-keeper kill-switch on` would.
    await expect.poll(() => page.getByTestId('kill-switch-button').textContent()).toContain('Engage');
    await page.getByTestId('kill-switch-button').click();
    await expect.poll(() => page.getByTestId('kill-switch-state').textContent(), { timeout: 15_000 }).toContain('ENGAGED');
    const on = await cliJson<{ engaged: boolean; mode: string; reason: string; by: string }>(['kill-switch', 'status', '--json', '--prefix', prefix, '--redis-url', world.redis.url]);
    expect(on).toMatchObject({ engaged: true, mode: 'halt', reason: 'dashboard', by: 'dashboard' });
    // The keeper's console says so, as for a switch thrown anywhere else.
    expect(await run.keeper.waitForLog((l) => l.msg === 'kill switch engaged', 15_000)).toMatchObject({ mode: 'halt', reason: 'dashboard', by: 'dashboard' });

    // And releases it (after the page's confirmation).
    await page.getByTestId('kill-switch-button').click();
    await expect.poll(() => page.getByTestId('kill-switch-state').textContent(), { timeout: 15_000 }).toContain('off');
    const off = await cliJson<{ engaged: boolean }>(['kill-switch', 'status', '--json', '--prefix', prefix, '--redis-url', world.redis.url]);
    expect(off.engaged).toBe(false);
    expect(await run.keeper.waitForLog((l) => l.msg === 'kill switch released', 15_000)).toMatchObject({ by: 'dashboard' });

    // The status page needs nothing from elsewhere and logs no error.
    expect(problems).toEqual([]);

    // Bull Board renders the keeper's four queues, and a queue's page, with nothing from elsewhere either (its
    // template asks Google Fonts for IBM Plex: the dashboard serves it without).
    // A page of its own: leaving the status page cuts its refresh's requests short, which is no failure of the page.
    await page.close();
    const board = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const boardProblems = await offline(board);
    await board.goto(new URL('/queues', run.url).href);
    for (const q of ['feeds', 'evaluate', 'execute', 'keeper']) await expect.poll(() => board.getByText(q, { exact: true }).count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await board.waitForLoadState('networkidle');
    expect(boardProblems).toEqual([]);
    expect(await stopKeeper(run.keeper)).toBe(0);
    keeper = undefined;
  }, 240_000);
});

