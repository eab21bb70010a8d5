import type { Keypair } from '@solana/web3.js';
import type { Page } from 'playwright-core';
import type { RunningSimulator } from '../../src/sim/server.js';
import { spawnKeeper, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { airdrop, SOL, USDC } from '../helpers/sim.js';

/**
 * A paper config for the dashboard tests: the simulator at `venueUrl`, a dca-swap selling 0.01 SOL for USDC every
 * 2 s (fills), a limit ladder around the SOL price (open orders), fast feeds, and the dashboard's chart sampling
 * every second.
 */
export function dashboardConfig(o: { venueUrl: string; prefix: string; extra?: string }): string {
  return `venue:
  kind: simulator
  url: ${o.venueUrl}
wallet: {}
redis:
  prefix: ${o.prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  concurrency: 2
  jobLock: 15s
  reconcileEvery: 2s
  deadline: 10m
feeds:
  prices: 1s
  wallet: 1s
dashboard:
  chartEvery: 1s
logging:
  level: info
strategies:
  - id: dca-sol-usdc
    strategy: dca-swap
    schedule:
      every: 2s
    params:
      inputMint: SOL
      outputMint: USDC
      amount: "10000000"
      via: ultra
      maxRuns: 4
  - id: ladder-sol-usdc
    strategy: limit-ladder
    schedule:
      every: 5s
    params:
      base: SOL
      quote: USDC
      levelsPerSide: 2
      spacingPct: 0.5
      buyAmount: "10000000"
      sellAmount: "100000000"
      rangePct: 5
      maxOrdersPerRun: 4
${o.extra ?? ''}`;
}

/** A funded wallet file for a dashboard test keeper: 5 SOL and 500 USDC. */
export async function dashboardWallet(sim: RunningSimulator, dir: string): Promise<{ path: string; keypair: Keypair }> {
  const w = writeKeypair(dir);
  await airdrop(sim, w.keypair, SOL, 5_000_000_000n);
  await airdrop(sim, w.keypair, USDC, 500_000_000n);
  return w;
}

/** Spawns `jup-keeper run` with a dashboard on any free port; resolves with its URL once it listens. */
export async function spawnWithDashboard(o: { dir: string; sim: RunningSimulator; redisUrl: string; prefix: string; args?: string[]; env?: Record<string, string>; extra?: string }): Promise<{ keeper: KeeperProcess; url: string; wallet: string }> {
  const wallet = await dashboardWallet(o.sim, o.dir);
  const config = writeConfig(o.dir, dashboardConfig({ venueUrl: o.sim.url, prefix: o.prefix, extra: o.extra }), `${o.prefix}.yaml`);
  const keeper = spawnKeeper(['run', '--config', config, '--wallet', wallet.path, '--redis-url', o.redisUrl, '--dashboard-port', '0', ...(o.args ?? [])], o.env);
  const line = await keeper.waitForLog((l) => typeof l.url === 'string' && l.component === 'dashboard', 90_000);
  return { keeper, url: String(line.url), wallet: wallet.keypair.publicKey.toBase58() };
}

/** GETs a dashboard path and parses its JSON body. */
export async function getJson<T = unknown>(base: string, path: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(new URL(path, base), { headers });
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** Debian's chromium (installed by .ci/run), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';
/** The flags it runs with in tests. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox'];

/**
 * Lets `page` reach this machine only (127.0.0.1, localhost, ::1): any other request is aborted. Returns the list
 * the page's problems are collected in: requests for elsewhere, failed requests, script errors and console errors.
 */
export async function offline(page: Page): Promise<string[]> {
  const problems: string[] = [];
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return route.continue();
    problems.push(`request for elsewhere: ${url.href}`);
    return route.abort('blockedbyclient');
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText ?? '?'})`));
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  return problems;
}
