import { describe, expect, it } from 'vitest';
import { dashboardSettings, dashboardUrl, isLoopback } from '../../src/dashboard/settings.js';
import { KeeperError } from '../../src/lib/errors.js';

const config = { enabled: true, chartEvery: 30_000, heartbeatStale: 30_000 };

describe('dashboard settings', () => {
  it('listens on 127.0.0.1:8787 by default, the flags over the config', () => {
    expect(dashboardSettings({}, config, undefined)).toMatchObject({ host: '127.0.0.1', port: 8787, portExplicit: false, token: undefined });
    expect(dashboardSettings({}, { ...config, host: 'localhost', port: 9000 }, undefined)).toMatchObject({ host: 'localhost', port: 9000, portExplicit: true });
    expect(dashboardSettings({ host: '::1', port: 0 }, { ...config, port: 9000 }, undefined)).toMatchObject({ host: '::1', port: 0, portExplicit: true });
  });

  it('is off when the config disables it, unless a flag asks for it', () => {
    expect(dashboardSettings({}, { ...config, enabled: false }, undefined)).toBeUndefined();
    expect(dashboardSettings({ port: 0 }, { ...config, enabled: false }, undefined)).toMatchObject({ port: 0 });
  });

  it('refuses an address other than loopback without DASHBOARD_TOKEN, and never repeats a token', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'keeper.example.com']) {
      let err: unknown;
      try {
        dashboardSettings({ host }, config, undefined);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(KeeperError);
      expect((err as KeeperError).code).toBe('DASHBOARD_TOKEN');
      expect((err as Error).message).toContain('DASHBOARD_TOKEN');
      expect((err as Error).message).toContain(host);
    }
    expect(dashboardSettings({ host: '0.0.0.0' }, config, 'a-long-random-token-of-the-operator')).toMatchObject({ host: '0.0.0.0', token: 'a-long-random-token-of-the-operator' });
    // An empty DASHBOARD_TOKEN is no token.
    expect(() => dashboardSettings({ host: '0.0.0.0' }, config, '')).toThrow(/DASHBOARD_TOKEN/);
  });

  it('knows loopback addresses and names', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', 'app.localhost', '::ffff:127.0.0.1']) expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', 'example.com', 'localhost.example.com', '128.0.0.1']) expect(isLoopback(h), h).toBe(false);
    expect(dashboardUrl('0.0.0.0', 8787)).toBe('http://127.0.0.1:8787/');
    expect(dashboardUrl('::1', 1)).toBe('http://[::1]:1/');
  });
});
