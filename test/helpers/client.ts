import { JupiterTransport, type JupiterClientConfig } from '../../src/jupiter/transport.js';

/** A transport against a local test server: no rate limit, fast retries, short timeout. */
export function testTransport(baseUrl: string, overrides: Partial<JupiterClientConfig> = {}): JupiterTransport {
  return new JupiterTransport({
    baseUrl,
    tier: 'off',
    timeoutMs: 2_000,
    retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 },
    ...overrides,
  });
}
