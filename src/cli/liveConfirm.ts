import { createInterface } from 'node:readline/promises';
import type { KeeperConfig } from '../config/index.js';
import { KeeperError } from '../lib/errors.js';
import { publicUrl } from '../lib/urls.js';

/** Where the confirmation is asked and answered (the process's streams; tests pass their own). */
export interface ConfirmIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

/** What a live start is about to do: real money, with these limits. Nothing secret (URLs without credentials). */
export function liveSummary(config: KeeperConfig, o: { wallet: string; venueUrl: string; rpcUrl: string }): string {
  const r = config.risk;
  const usd = (n: number | undefined): string => (n === undefined ? 'none' : `$${n.toLocaleString('en-US')}`);
  const sol = (lamports: bigint | undefined): string => (lamports === undefined ? 'none' : `${(Number(lamports) / 1e9).toFixed(4)} SOL`);
  const lines = [
    '',
    '  LIVE TRADING: real transactions, real money',
    `  venue      ${publicUrl(o.venueUrl)} (RPC ${publicUrl(o.rpcUrl)})`,
    `  wallet     ${o.wallet}`,
    `  strategies ${config.strategies.filter((s) => s.enabled).map((s) => `${s.id} (${s.strategy})`).join(', ')}`,
    `  limits     ${usd(r.maxNotionalUsdPerIntent)} per intent, ${usd(r.maxDailyNotionalUsd)} per day, slippage ≤ ${r.maxSlippageBps} bps, ${sol(r.minSolReserveLamports)} kept for fees`,
    `             daily loss ${usd(r.maxDailyLossUsd)}, drawdown ${r.maxDrawdownPct === undefined ? 'none' : `${r.maxDrawdownPct} %`} (either trips the kill switch)`,
    '  stop       `jup-keeper kill-switch on --mode halt --reason "..."` stops every order at once',
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Before a live keeper starts: shows what it will do and asks for `yes`, unless `--yes` was given. Without a terminal
 * to ask on (a service manager, a pipe) a live start needs `--yes`: it refuses rather than trade unconfirmed.
 */
export async function confirmLiveStart(config: KeeperConfig, o: { wallet: string; venueUrl: string; rpcUrl: string; yes: boolean }, io: ConfirmIo): Promise<void> {
  io.output.write(liveSummary(config, o));
  if (o.yes) return;
  if (!io.input.isTTY) {
    throw new KeeperError('LIVE_NOT_CONFIRMED', 'halt', 'a live start must be confirmed: run it in a terminal and answer yes, or pass --yes (for a service manager)');
  }
  const rl = createInterface({ input: io.input, output: io.output });
  try {
    const answer = await rl.question('  Type yes to start trading: ');
    if (answer.trim().toLowerCase() !== 'yes') throw new KeeperError('LIVE_NOT_CONFIRMED', 'halt', 'not confirmed; nothing was started');
  } finally {
    rl.close();
  }
}
