// The venue's URLs and the Jupiter client's settings, each decided in one place (src/config/venueUrls.ts,
// src/config/clientOptions.ts) for `run`, the send commands and the config's symbol look-ups alike.
import { describe, expect, it } from 'vitest';
import { jupiterClientOptions } from '../../src/config/clientOptions.js';
import { venueBaseUrl, venueRpcUrl } from '../../src/config/venueUrls.js';
import { JUPITER_BASE_URL } from '../../src/jupiter/transport.js';

describe('the venue\'s origin', () => {
  it('is the URL passed, else the config\'s, else for a live venue JUPITER_BASE_URL or Jupiter\'s own', () => {
    expect(venueBaseUrl({ kind: 'simulator', url: 'http://cfg' }, undefined, 'http://flag')).toBe('http://flag');
    expect(venueBaseUrl({ kind: 'live', url: 'http://cfg' }, { JUPITER_BASE_URL: 'http://env' })).toBe('http://cfg');
    expect(venueBaseUrl({ kind: 'live', url: undefined }, { JUPITER_BASE_URL: 'http://env' })).toBe('http://env');
    expect(venueBaseUrl({ kind: 'live', url: undefined }, undefined)).toBe(JUPITER_BASE_URL);
  });

  it('is none for a simulator venue without a URL: the in-process simulator answers', () => {
    expect(venueBaseUrl({ kind: 'simulator', url: undefined }, { JUPITER_BASE_URL: 'http://env' })).toBeUndefined();
  });
});

describe('the venue\'s RPC', () => {
  it('is the configured one, else SOLANA_RPC_URL for a live venue, else the simulator\'s <base>/rpc', () => {
    expect(venueRpcUrl({ kind: 'live', rpcUrl: 'http://rpc' }, 'http://base', 'http://env-rpc')).toBe('http://rpc');
    expect(venueRpcUrl({ kind: 'live', rpcUrl: undefined }, 'http://base', 'http://env-rpc')).toBe('http://env-rpc');
    expect(venueRpcUrl({ kind: 'simulator', rpcUrl: undefined }, 'http://sim:4000//', 'http://env-rpc')).toBe('http://sim:4000/rpc');
  });

  it('is none for a live venue with neither', () => {
    expect(venueRpcUrl({ kind: 'live', rpcUrl: undefined }, 'http://base', undefined)).toBeUndefined();
  });
});

describe('the Jupiter client\'s settings', () => {
  it('send the key to the configured origin only, else JUPITER_BASE_URL\'s, else Jupiter\'s own', () => {
    const env = { JUPITER_API_KEY: 'k', JUPITER_BASE_URL: 'http://env' };
    expect(jupiterClientOptions({ baseUrl: 'http://sim', live: false, api: { keyedBaseUrl: 'http://keyed' }, env })).toMatchObject({ baseUrl: 'http://sim', apiKey: 'k', keyedBaseUrl: 'http://keyed' });
    expect(jupiterClientOptions({ baseUrl: 'http://sim', live: false, api: {}, env }).keyedBaseUrl).toBe('http://env');
    expect(jupiterClientOptions({ baseUrl: 'http://sim', live: false, api: undefined, env: undefined })).toMatchObject({ apiKey: undefined, keyedBaseUrl: JUPITER_BASE_URL });
  });

  it('leave a simulator unlimited unless the config names a tier, and a live venue to the key\'s tier', () => {
    expect(jupiterClientOptions({ baseUrl: 'http://sim', live: false, api: {}, env: undefined }).tier).toBe('off');
    expect(jupiterClientOptions({ baseUrl: 'http://sim', live: false, api: { tier: 'ultra' }, env: undefined }).tier).toBe('ultra');
    expect(jupiterClientOptions({ baseUrl: JUPITER_BASE_URL, live: true, api: {}, env: undefined }).tier).toBeUndefined();
  });

  it('carry the config\'s request rate and timeout', () => {
    expect(jupiterClientOptions({ baseUrl: 'http://x', live: true, api: { tier: 'custom', requestsPerMinute: 120, timeoutMs: 5_000 }, env: undefined })).toMatchObject({ customRequestsPerMinute: 120, timeoutMs: 5_000 });
  });
});
