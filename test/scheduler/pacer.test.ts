import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TickPacer } from '../../src/scheduler/pacer.js';

// Time is the subject here: the pacer PINGs Redis just after each tick it knows of, so a worker blocked until that
// tick is released at once instead of at Redis' next 100 ms timer.
describe('TickPacer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  it('pings once just after the next tick of a repeating job, however many jobs name that tick', async () => {
    const pings: number[] = [];
    const pacer = new TickPacer(() => Promise.resolve(pings.push(Date.now())));
    pacer.afterRepeat(995_000, 10_000); // ran at its tick 995 000; next tick 1 005 000
    pacer.afterRepeat(995_000, 10_000);
    pacer.arm(1_005_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(pings).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(pings).toEqual([1_005_001]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(pings).toEqual([1_005_001]);
  });

  it('ignores ticks already past, cron jobs (no every), and everything once closed', async () => {
    const ping = vi.fn(() => Promise.resolve('PONG'));
    const pacer = new TickPacer(ping);
    pacer.arm(999_000);
    pacer.afterRepeat(1_000_000, undefined);
    pacer.arm(1_002_000);
    pacer.close();
    pacer.arm(1_003_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ping).not.toHaveBeenCalled();
  });

  it('keeps going when a PING fails, and holds at most its bound of ticks', async () => {
    const ping = vi.fn(() => Promise.reject(new Error('Connection is closed.')));
    const pacer = new TickPacer(ping, Date.now, 2);
    pacer.arm(1_001_000);
    pacer.arm(1_002_000);
    pacer.arm(1_003_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ping).toHaveBeenCalledTimes(2);
    pacer.arm(1_015_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ping).toHaveBeenCalledTimes(3);
  });
});
