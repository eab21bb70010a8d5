// The venue of the benchmark: `jup-keeper sim` in a process of its own (real HTTP, real LiteSVM settlement), wallets
// funded through its control API, and keeper configs pointed at it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { spawnKeeperProcess, type BenchProcess } from './procs.js';
import { rememberVenueBucket } from './redis.js';

export const SOL = 'So11111111111111111111111111111111111111112';
export const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** A running `jup-keeper sim`. */
export interface Venue {
  url: string;
  process: BenchProcess;
}

/** Starts `jup-keeper sim` on a free port; `apiKeys` as `KEY:TIER`. */
export async function startVenue(o: { apiKeys?: string[]; seed?: number } = {}): Promise<Venue> {
  const args = ['sim', '--port', '0', '--seed', String(o.seed ?? 7), '--clock-speed', '1'];
  for (const k of o.apiKeys ?? []) args.push('--api-key', k);
  const p = spawnKeeperProcess('sim', args);
  const m = await p.stdoutMatch(/jupiter api: (http:\/\/\S+)/, 60_000);
  rememberVenueBucket(m[1]!);
  return { url: m[1]!, process: p };
}

/** Airdrops `amount` base units of `mint` to `wallet` on the venue. */
export async function airdrop(url: string, wallet: string, mint: string, amount: bigint): Promise<void> {
  const r = await fetch(`${url}/__sim/airdrop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet, mint, amount: amount.toString() }) });
  if (!r.ok) throw new Error(`airdrop refused: ${await r.text()}`);
}

/** A keypair file in `dir` for a fresh wallet, funded with SOL and USDC on the venue. */
export async function fundedWallet(url: string, dir: string, name: string, o: { sol: bigint; usdc: bigint }): Promise<{ path: string; address: string }> {
  const kp = Keypair.generate();
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(Array.from(kp.secretKey)));
  const address = kp.publicKey.toBase58();
  if (o.sol > 0n) await airdrop(url, address, SOL, o.sol);
  if (o.usdc > 0n) await airdrop(url, address, USDC, o.usdc);
  return { path, address };
}

/** Settled transactions on the venue's ledger, of a wallet and kind. */
export async function settledCount(url: string, wallet: string, kind = 'ultra'): Promise<number> {
  const r = await fetch(`${url}/__sim/ledger`);
  const body = (await r.json()) as { transactions: Array<{ wallet: string; kind: string }> };
  return body.transactions.filter((t) => t.wallet === wallet && t.kind === kind).length;
}

/** What the venue's gateway let through and refused since the last reset (GET /__sim/gateway). */
export interface GatewayCounts {
  allowed: number;
  tooMany: number;
  lanes: Record<string, { allowed: number; tooMany: number }>;
}

export async function gatewayCounts(url: string, reset = false): Promise<GatewayCounts> {
  const r = await fetch(`${url}/__sim/gateway`, { method: reset ? 'DELETE' : 'GET' });
  return (await r.json()) as GatewayCounts;
}

/** The parts of a keeper config the benchmarks vary. */
export interface KeeperConfigParts {
  venueUrl: string;
  walletPath: string;
  prefix: string;
  /** YAML lines of the strategies list, each starting with `  - `. */
  strategies: string[];
  execution?: Record<string, string | number>;
  feeds?: Record<string, string>;
  api?: Record<string, string | number>;
  logLevel?: string;
}

/** A keeper config (YAML) for the venue, with generous risk limits (the benchmarks measure speed, not the gate). */
export function keeperConfig(c: KeeperConfigParts): string {
  const flow = (o: Record<string, string | number>) => `{ ${Object.entries(o).map(([k, v]) => `${k}: ${typeof v === 'number' ? v : JSON.stringify(v)}`).join(', ')} }`;
  return [
    `venue: { kind: simulator, url: ${JSON.stringify(c.venueUrl)} }`,
    `wallet: { keypairPath: ${JSON.stringify(c.walletPath)} }`,
    `redis: { prefix: ${JSON.stringify(c.prefix)} }`,
    `risk: { maxNotionalUsdPerIntent: 1000000, maxDailyNotionalUsd: 100000000, maxSlippageBps: 500, minSolReserveLamports: "10000000" }`,
    `execution: ${flow({ concurrency: 4, ...c.execution })}`,
    `feeds: ${flow({ prices: '5s', wallet: '5s', ...c.feeds })}`,
    ...(c.api ? [`api: ${flow(c.api)}`] : []),
    `logging: { level: ${c.logLevel ?? 'warn'} }`,
    'strategies:',
    ...c.strategies,
    '',
  ].join('\n');
}

/** `n` threshold-rebalance instances SOL/USDC whose band (50 points around 0.5) holds any weight: they never trade. */
export function idleRebalancers(n: number, every: string, idPrefix = 'r'): string[] {
  return Array.from({ length: n }, (_, i) => `  - { id: ${idPrefix}-${i}, strategy: threshold-rebalance, schedule: { every: ${every} }, params: { base: SOL, quote: USDC, targetBaseWeight: 0.5, bandPct: 50, maxSwapUsd: 10 } }`);
}

/** `n` dca-swap instances, each an Ultra swap of `amount` lamports SOL to USDC every `every`. */
export function dcaSwappers(n: number, every: string, amount: bigint, maxRuns = 1_000_000, idPrefix = 'd'): string[] {
  return Array.from({ length: n }, (_, i) => `  - { id: ${idPrefix}-${i}, strategy: dca-swap, schedule: { every: ${every} }, params: { inputMint: SOL, outputMint: USDC, amount: "${amount}", via: ultra, maxRuns: ${maxRuns} } }`);
}
