import { afterAll, describe, expect, it } from 'vitest';
import { stopKeeper, waitUntil } from '../helpers/e2e.js';
import { runKeeperCli, useKeeperEnv, writeConfig, type KeeperProcess } from '../helpers/keeper.js';
import { dashboardConfig, dashboardWallet, getJson, spawnWithDashboard } from './helpers.js';
import { parsePrometheus } from './prometheus.js';

/** A token as an operator would make one (openssl rand -hex 24). */
const TOKEN = 'c0ffee5eed1e55a11ce0ddba11fade4b1ab0c0de';
/** Every route of the dashboard that outside tools use, and the page's own APIs. */
const ROUTES = ['/', '/api/status', '/api/intents', '/api/series', '/metrics', '/healthz', '/readyz', '/queues', '/queues/api/queues'];

interface Lineage {
  id: string;
  state: string;
  kind: string;
  job: { id: string; state: string } | null;
  signatures: string[];
}

describe('the dashboard on an address other than loopback', () => {
  const world = useKeeperEnv('dashboard-access');
  let keeper: KeeperProcess | undefined;
  afterAll(async () => {
    if (keeper) await stopKeeper(keeper).catch(() => undefined);
  });

  it('refuses to start without DASHBOARD_TOKEN, naming it', async () => {
    const w = await dashboardWallet(world.sim, world.dir);
    const config = writeConfig(world.dir, dashboardConfig({ venueUrl: world.sim.url, prefix: 'dash-refused' }), 'refused.yaml');
    const r = await runKeeperCli(['run', '--config', config, '--wallet', w.path, '--redis-url', world.redis.url, '--dashboard-host', '0.0.0.0', '--dashboard-port', '0']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('DASHBOARD_TOKEN');
    expect(r.stderr).toContain('0.0.0.0');
    expect(r.stderr).not.toMatch(/keeper started|dashboard at/);
  }, 60_000);

  it('with DASHBOARD_TOKEN: 401 without it, every route with it, a read-only Bull Board, Prometheus metrics, and the kill switch behind the token and a CSRF check', async () => {
    const prefix = 'dash-access';
    const run = await spawnWithDashboard({
      dir: world.dir,
      sim: world.sim,
      redisUrl: world.redis.url,
      prefix,
      args: ['--dashboard-host', '0.0.0.0'],
      env: { DASHBOARD_TOKEN: TOKEN },
      // A client-side rate limit, so that the rate budget's limit and use are reported.
      extra: 'api:\n  tier: custom\n  requestsPerMinute: 100000\n',
    });
    keeper = run.keeper;
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const at = (path: string) => new URL(path, run.url);
    await run.keeper.waitForLog((l) => l.msg === 'keeper started', 60_000);

    // No token, a wrong one, a wrong login: 401, and nothing of the keeper in the body.
    for (const path of ROUTES) {
      for (const headers of [{}, { authorization: 'Bearer not-the-token' }, { cookie: 'jk_dashboard=forged' }] as Array<Record<string, string>>) {
        const res = await fetch(at(path), { headers, redirect: 'manual' });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(await res.text()).not.toContain(run.wallet);
      }
    }
    expect((await fetch(at('/?token=wrong'), { redirect: 'manual' })).status).toBe(401);

    // With the token: every route answers.
    await waitUntil('a landed swap', async () => (await getJson<Lineage[]>(run.url, '/api/intents', bearer)).find((i) => i.kind === 'swap' && i.state === 'landed' && i.job?.state === 'completed'), 90_000);
    for (const path of ROUTES) expect((await fetch(at(path), { headers: bearer })).status, path).toBe(200);

    // The browser's login: ?token= sets an HttpOnly, SameSite=Strict cookie (not the token) and drops the token from the address.
    const login = await fetch(at('/api/intents?token=' + TOKEN), { redirect: 'manual' });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/api/intents');
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^jk_dashboard=[^;]+;/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(';')[0]!;
    // The redirect is always to a path on the dashboard, never to another address.
    const offsite = await fetch(`${new URL(run.url).origin}//evil.example/?token=${TOKEN}`, { redirect: 'manual' });
    expect(offsite.headers.get('location')).toBe('/evil.example/');
    const page = await fetch(at('/'), { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain(TOKEN);
    const csrf = /<meta name="jk-csrf" content="([^"]+)">/.exec(html)?.[1];
    expect(csrf).toBeTruthy();

    // /api/status is what `status --json` prints.
    const [api, cli] = await Promise.all([getJson<Record<string, unknown>>(run.url, '/api/status', bearer), runKeeperCli(['status', '--json', '--prefix', prefix, '--redis-url', world.redis.url])]);
    expect(cli.code).toBe(0);
    const printed = JSON.parse(cli.stdout) as Record<string, unknown>;
    expect(Object.keys(api)).toEqual(Object.keys(printed));
    for (const k of ['prefix', 'redis', 'venue', 'wallet', 'keeper']) expect(api[k], k).toEqual(printed[k]);

    // Bull Board is read-only: its queues say so, and retry, clean, promote, remove, add, pause are refused over HTTP.
    const board = await getJson<{ queues: Array<{ name: string; readOnlyMode: boolean }> }>(run.url, '/queues/api/queues', bearer);
    expect(board.queues.map((q) => q.name).sort()).toEqual(['evaluate', 'execute', 'feeds', 'keeper']);
    for (const q of board.queues) expect(q.readOnlyMode, q.name).toBe(true);
    const before = (await getJson<Lineage[]>(run.url, '/api/intents', bearer)).find((i) => i.kind === 'swap' && i.state === 'landed' && i.job?.state === 'completed')!;
    const job = encodeURIComponent(before.job!.id);
    const actions: Array<[string, string]> = [
      ['PUT', `/queues/api/queues/execute/${job}/retry`],
      ['PUT', `/queues/api/queues/execute/retry/completed`],
      ['PUT', `/queues/api/queues/execute/retry/failed`],
      ['PUT', `/queues/api/queues/execute/clean/completed`],
      ['PUT', `/queues/api/queues/execute/${job}/clean`],
      ['PUT', `/queues/api/queues/execute/${job}/promote`],
      ['PUT', `/queues/api/queues/execute/promote`],
      ['PUT', `/queues/api/queues/execute/empty`],
      ['PUT', `/queues/api/queues/execute/obliterate`],
      ['PUT', `/queues/api/queues/pause`],
      ['POST', `/queues/api/queues/execute/add`],
      ['PATCH', `/queues/api/queues/execute/${job}/update-data`],
    ];
    for (const [method, path] of actions) {
      const res = await fetch(at(path), { method, headers: { ...bearer, 'content-type': 'application/json' }, body: method === 'POST' || method === 'PATCH' ? JSON.stringify({ name: 'execute', data: { intentId: before.id } }) : undefined });
      expect(res.status, `${method} ${path}`).toBe(405);
    }
    const after = (await getJson<Lineage[]>(run.url, '/api/intents', bearer)).find((i) => i.id === before.id)!;
    expect(after.job?.state).toBe('completed');
    expect(after.signatures).toEqual(before.signatures);

    // /metrics parses as Prometheus text and has the keeper's metrics.
    const scrape = async () => {
      const res = await fetch(at('/metrics'), { headers: bearer });
      expect(res.headers.get('content-type')).toContain('text/plain');
      return parsePrometheus(await res.text());
    };
    // A trade is in the ledger once its intent landed: scrape until it is there.
    const families = await waitUntil('a trade in /metrics', async () => {
      const f = await scrape();
      return (f.get('jupkeeper_trades_total')?.samples.length ?? 0) > 0 && f;
    }, 30_000);
    const samples = (name: string) => families.get(name)?.samples ?? [];
    expect(families.get('jupkeeper_queue_jobs')?.type).toBe('gauge');
    expect(samples('jupkeeper_queue_jobs').map((s) => s.labels.queue)).toEqual(expect.arrayContaining(['feeds', 'evaluate', 'execute', 'keeper']));
    expect(families.get('jupkeeper_job_duration_seconds')?.type).toBe('histogram');
    expect(samples('jupkeeper_job_duration_seconds').some((s) => s.name === 'jupkeeper_job_duration_seconds_count' && s.labels.queue === 'execute' && s.value > 0)).toBe(true);
    expect(samples('jupkeeper_intents').find((s) => s.labels.state === 'landed')?.value).toBeGreaterThan(0);
    expect(families.has('jupkeeper_refusals_today')).toBe(true);
    expect(families.get('jupkeeper_execution_refusals_total')?.type).toBe('counter');
    // Trades by the one definition (what `trades --all` lists), by strategy and kind.
    expect(samples('jupkeeper_trades_total').find((s) => s.labels.strategy === 'dca-sol-usdc' && s.labels.kind === 'swap')?.value).toBeGreaterThan(0);
    expect(families.has('jupkeeper_claims_total')).toBe(true);
    expect(samples('jupkeeper_rate_budget_requests_last_minute')[0]?.value).toBeGreaterThan(0);
    expect(samples('jupkeeper_rate_budget_limit_per_minute')[0]?.value).toBe(100_000);
    expect(samples('jupkeeper_rate_budget_used_ratio')[0]?.value).toBeGreaterThan(0);
    expect(samples('jupkeeper_jupiter_429_total')[0]?.value).toBe(0);
    expect(families.get('jupkeeper_tick_to_submit_seconds')?.type).toBe('histogram');
    expect(samples('jupkeeper_tick_to_submit_seconds').find((s) => s.name === 'jupkeeper_tick_to_submit_seconds_count')?.value).toBeGreaterThan(0);
    expect(samples('jupkeeper_wallet_value_usd')[0]?.value).toBeGreaterThan(100);

    // The kill switch: POST only, with the token, from the page's own origin, with its CSRF header.
    const ks = (headers: Record<string, string>, method = 'POST') => fetch(at('/api/kill-switch'), { method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'POST' ? JSON.stringify({ engaged: true }) : undefined });
    const origin = new URL(run.url).origin;
    expect((await ks({ 'x-jk-csrf': csrf! })).status).toBe(401);
    expect((await ks({ cookie })).status).toBe(403);
    expect((await ks({ cookie, 'x-jk-csrf': 'forged' })).status).toBe(403);
    expect((await ks({ cookie, 'x-jk-csrf': csrf!, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })).status).toBe(403);
    expect((await ks({ cookie, 'x-jk-csrf': csrf!, origin: 'https://evil.example' })).status).toBe(403);
    expect((await ks({ cookie, 'x-jk-csrf': csrf! }, 'GET')).status).toBe(405);
    let state = await runKeeperCli(['kill-switch', 'status', '--json', '--prefix', prefix, '--redis-url', world.redis.url]);
    expect(JSON.parse(state.stdout).engaged).toBe(false);
    const engaged = await ks({ cookie, 'x-jk-csrf': csrf!, origin, 'sec-fetch-site': 'same-origin' });
    expect(engaged.status).toBe(200);
    expect(await engaged.json()).toMatchObject({ engaged: true, mode: 'halt', reason: 'dashboard', by: 'dashboard' });
    state = await runKeeperCli(['kill-switch', 'status', '--json', '--prefix', prefix, '--redis-url', world.redis.url]);
    expect(JSON.parse(state.stdout)).toMatchObject({ engaged: true, reason: 'dashboard' });

    expect(await stopKeeper(run.keeper)).toBe(0);
    keeper = undefined;
    // The token never reached a log line.
    expect(run.keeper.stderr.join('') + run.keeper.stdout.join('')).not.toContain(TOKEN);
  }, 240_000);
});
