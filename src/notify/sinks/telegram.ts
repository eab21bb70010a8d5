import type { KeeperEvent } from '../../lib/events.js';
import { messageText } from '../format.js';
import { postJson, type Sink } from './http.js';

/** Telegram's limit on a message's text. */
const TELEGRAM_MAX_CHARS = 4096;

/** Telegram Bot API sendMessage to one chat, as plain text. The token is in the URL: it never leaves this closure. */
export function telegramSink(o: { token: string; chatId: string; apiUrl: string; prefix: string; timeoutMs: number }): Sink {
  const url = `${o.apiUrl.replace(/\/+$/, '')}/bot${o.token}/sendMessage`;
  return {
    name: 'telegram',
    send: (events: readonly KeeperEvent[], signal: AbortSignal) => postJson('telegram', url, { chat_id: o.chatId, text: messageText(o.prefix, events, TELEGRAM_MAX_CHARS), disable_web_page_preview: true }, o.timeoutMs, signal),
  };
}
