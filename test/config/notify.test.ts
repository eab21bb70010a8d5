// The config's `notify:` and `logging:` sections (issue 13, items 3 and 5): secrets only from the environment, each
// missing one reported at load (and by `config check`) with the variable to set.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { builtinStrategies } from '../../strategies/index.js';

const BASE = `venue: { kind: simulator }
wallet: { paper: true }
strategies:
  - id: dca
    strategy: dca-swap
    schedule: { every: 1m }
    params: { inputMint: SOL, outputMint: USDC, amount: "1000000" }
`;

function problems(yaml: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfig(BASE + yaml, 'notify.yaml', builtinStrategies, env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
}

describe('the notify section', () => {
  it('is off by default, and logging defaults to auto with a summary every 5 minutes', () => {
    const c = parseConfig(BASE, 'notify.yaml', builtinStrategies, {});
    expect(c.notify).toBeUndefined();
    expect(c.logging).toEqual({ level: 'info', format: 'auto', summaryEvery: 300_000 });
  });

  it('reads every sink with its events, pacing and retries', () => {
    const c = parseConfig(BASE + 'notify:\n  webhook: { url: "http://127.0.0.1:9000/hook", events: [fill, kill-switch] }\n  telegram: { chatId: 12345 }\n  discord: {}\n  rateLimit: { perMinute: 30, burst: 3 }\n  coalesce: 2s\n  dailySummaryAt: "06:30"\nlogging: { format: pretty, summaryEvery: 1m }\n', 'n.yaml', builtinStrategies, { TELEGRAM_BOT_TOKEN: '123:abc', DISCORD_WEBHOOK_URL: 'https://discord.com/api/webhooks/1/x' });
    expect(c.notify).toMatchObject({ webhook: { url: 'http://127.0.0.1:9000/hook', events: ['fill', 'kill-switch'] }, telegram: { chatId: '12345', apiUrl: 'https://api.telegram.org', events: ['fill', 'claim', 'refusal', 'kill-switch', 'error', 'summary'] }, discord: { events: expect.any(Array) }, rateLimit: { perMinute: 30, burst: 3 }, coalesce: 2_000, retries: 4, dailySummaryAt: '06:30' });
    expect(c.logging).toEqual({ level: 'info', format: 'pretty', summaryEvery: 60_000 });
  });

  it('names the environment variable each sink needs when it is missing', () => {
    expect(problems('notify:\n  telegram: { chatId: "1" }\n  discord: {}\n  webhook: {}\n')).toEqual([
      'notify.webhook.url: a webhook needs a URL: notify.webhook.url, or NOTIFY_WEBHOOK_URL in the environment',
      'notify.telegram: Telegram needs the bot token in the environment: TELEGRAM_BOT_TOKEN',
      'notify.discord: Discord needs the webhook URL in the environment: DISCORD_WEBHOOK_URL',
    ]);
    expect(problems('notify:\n  webhook: {}\n', { NOTIFY_WEBHOOK_URL: 'https://hooks.example/abc' })).toEqual([]);
  });

  it('refuses a secret written in the file, and says nothing of its value', () => {
    const found = problems('notify:\n  telegram: { chatId: "1", botToken: "123456:SECRETVALUE" }\n', { TELEGRAM_BOT_TOKEN: 't' });
    expect(found.join('\n')).toContain('notify.telegram.botToken: secrets must not be written in the config file');
    expect(found.join('\n')).not.toContain('SECRETVALUE');
    expect(problems('notify:\n  webhook: { url: "https://hooks.example/x?token=SECRETVALUE" }\n').join('\n')).toContain('notify.webhook.url: this URL carries a credential');
  });

  it('refuses an unknown event, format or time of day', () => {
    expect(problems('notify:\n  webhook: { url: "http://127.0.0.1:1/h", events: [fills] }\nlogging: { format: fancy }\n')).toEqual([
      'logging.format: Invalid option: expected one of "auto"|"json"|"pretty"',
      'notify.webhook.events[0]: Invalid option: expected one of "fill"|"claim"|"refusal"|"kill-switch"|"error"|"summary"',
    ]);
    expect(problems('notify:\n  webhook: { url: "http://127.0.0.1:1/h" }\n  dailySummaryAt: "24:00"\n')).toEqual(['notify.dailySummaryAt: expected HH:MM (UTC)']);
  });
});
