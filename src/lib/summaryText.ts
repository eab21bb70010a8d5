import { formatUsd, humanNumber } from './fills.js';

/** The fields of a summary (the 'summary' log line's and event's), as the console and the notifications word them. */
export interface SummaryFields {
  /** "session 3", or "24 h to 2026-11-27 06:00 UTC". */
  period: string;
  /** How long the session has run, ms (a session's summary only). */
  sinceMs?: number | undefined;
  /** The session the P&L is of. */
  session?: number | undefined;
  trades: number;
  claims: number;
  volumeUsd: number;
  feesLamports: string;
  refusals: number;
  errors: number;
  pnlUsd: number | null;
  unrealizedUsd?: number | null | undefined;
}

/**
 * A summary as one phrase that says its scope: "session 3 (12m): 4 trades (1 claim), $12.30 volume, 0.00002 SOL
 * fees, P&L realised -$0.19, unrealised -$0.56, 2 refusals". The trades are those `trades` lists for the same
 * session (claims among them); the P&L is the session's.
 */
export function summaryPhrase(s: SummaryFields): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  const usd = (n: number | null | undefined) => (n === null || n === undefined ? 'unknown' : formatUsd(n));
  const pnlScope = s.session !== undefined && !s.period.startsWith('session ') ? ` (session ${s.session})` : '';
  const parts = [
    `${plural(s.trades, 'trade')}${s.claims > 0 ? ` (${plural(s.claims, 'claim')})` : ''}`,
    `${formatUsd(s.volumeUsd)} volume`,
    `${humanNumber(Number(s.feesLamports) / 1e9)} SOL fees`,
    `P&L${pnlScope} realised ${usd(s.pnlUsd)}, unrealised ${usd(s.unrealizedUsd)}`,
    plural(s.refusals, 'refusal'),
  ];
  if (s.errors > 0) parts.push(plural(s.errors, 'error'));
  return `${s.period}${s.sinceMs !== undefined ? ` (${age(s.sinceMs)})` : ''}: ${parts.join(', ')}`;
}

function age(ms: number): string {
  const m = Math.round(ms / 60_000);
  if (m < 1) return `${Math.round(ms / 1000)}s`;
  return m < 60 ? `${m}m` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
