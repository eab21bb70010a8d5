import type { KeeperEvent } from '../lib/events.js';
import { describeFill, formatUsd, humanNumber, shortId } from '../lib/fills.js';

/** One event as one line of a message, in human units. */
export function eventLine(e: KeeperEvent): string {
  switch (e.type) {
    case 'fill':
      return `filled ${e.instance}: ${describeFill(e)}${e.signature ? ` (sig ${shortId(e.signature)})` : ''}`;
    case 'claim':
      return `claimed ${e.instance}: ${e.reason}${e.signature ? ` (sig ${shortId(e.signature)})` : ''}`;
    case 'refusal':
      return `refused ${e.instance}: ${e.kind} by ${e.rule}: ${e.message}`;
    case 'kill-switch':
      return e.engaged ? `KILL SWITCH ENGAGED (${e.mode ?? 'halt'}) by ${e.by}: ${e.reason}` : `kill switch released by ${e.by}`;
    case 'error':
      return `error${e.component ? ` in ${e.component}` : ''}: ${e.message}`;
    case 'summary':
      return summaryText(e);
  }
}

/** A summary as one line: "today 2026-11-26: 12 trades, $184.20 volume, 0.00006 SOL fees, P&L -$0.31, 2 refusals". */
export function summaryText(e: Extract<KeeperEvent, { type: 'summary' }>): string {
  const parts = [
    `${e.trades} trade${e.trades === 1 ? '' : 's'}`,
    `${formatUsd(e.volumeUsd)} volume`,
    `${humanNumber(Number(e.feesLamports) / 1e9)} SOL fees`,
    `P&L ${e.pnlUsd === null ? 'unknown' : formatUsd(e.pnlUsd)}`,
    `${e.claims} claim${e.claims === 1 ? '' : 's'}`,
    `${e.refusals} refusal${e.refusals === 1 ? '' : 's'}`,
  ];
  if (e.errors > 0) parts.push(`${e.errors} error${e.errors === 1 ? '' : 's'}`);
  return `summary ${e.period}: ${parts.join(', ')}`;
}

/**
 * A message of one or more events (a burst coalesced): a title naming the deployment, then a line each; at most
 * `maxChars` (Telegram takes 4096, Discord 2000), the lines that do not fit counted instead.
 */
export function messageText(prefix: string, events: readonly KeeperEvent[], maxChars: number): string {
  const title = events.length === 1 ? `jup-keeper ${prefix}` : `jup-keeper ${prefix}: ${events.length} events`;
  const lines = events.map((e) => (events.length === 1 ? eventLine(e) : `• ${eventLine(e)}`));
  let text = `${title}\n`;
  for (const [i, line] of lines.entries()) {
    const rest = lines.length - i;
    const more = `… and ${rest} more`;
    if (text.length + line.length + 1 + (rest > 1 ? more.length + 1 : 0) > maxChars) return `${text}${more}`.slice(0, maxChars);
    text += `${line}\n`;
  }
  return text.trimEnd().slice(0, maxChars);
}
