import type { KeeperEvent } from '../lib/events.js';
import { describeFill, shortId } from '../lib/fills.js';
import { summaryPhrase } from '../lib/summaryText.js';

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

/** A summary as one line: "summary session 3 (12m): 4 trades (1 claim), $12.30 volume, …, P&L realised -$0.19, unrealised -$0.56, …". */
export function summaryText(e: Extract<KeeperEvent, { type: 'summary' }>): string {
  return `summary ${summaryPhrase(e)}`;
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
