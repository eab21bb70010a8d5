import type { KeeperEvent } from '../../lib/events.js';
import { messageText } from '../format.js';
import { postJson, type Sink } from './http.js';

/** Discord's limit on a webhook message's content. */
const DISCORD_MAX_CHARS = 2000;

/** A Discord channel webhook (execute webhook: `content`). Its URL carries the secret: it never leaves this closure. */
export function discordSink(o: { url: string; prefix: string; timeoutMs: number }): Sink {
  return {
    name: 'discord',
    send: (events: readonly KeeperEvent[], signal: AbortSignal) => postJson('discord', o.url, { content: messageText(o.prefix, events, DISCORD_MAX_CHARS), allowed_mentions: { parse: [] } }, o.timeoutMs, signal),
  };
}
