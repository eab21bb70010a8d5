import type { KeeperEvent } from '../../lib/events.js';
import { messageText } from '../format.js';
import { postJson, type Sink } from './http.js';

/** A generic webhook: POST `{ source: 'jup-keeper', prefix, text, events }`, the events as the stream has them. */
export function webhookSink(o: { url: string; prefix: string; timeoutMs: number }): Sink {
  return {
    name: 'webhook',
    send: (events: readonly KeeperEvent[], signal: AbortSignal) => postJson('webhook', o.url, { source: 'jup-keeper', prefix: o.prefix, text: messageText(o.prefix, events, 20_000), events }, o.timeoutMs, signal),
  };
}
