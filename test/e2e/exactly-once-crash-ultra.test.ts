import { afterAll, beforeAll, describe, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/exactlyOnce.js';
import { crashAndRecover } from '../helpers/crashScenario.js';

// A keeper SIGKILLed at each step of its first Ultra swap, then restarted: every intent lands exactly once.
// The cases share this file's simulator and Redis (each has its own prefix and wallet), so they run concurrently.
describe.concurrent('exactly once across a crash, via Ultra', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('crash-ultra');
  });
  afterAll(async () => {
    await h?.close();
  });

  for (const point of ['after-build', 'after-sign', 'after-submit'] as const) {
    it(`crash ${point}: the restarted keeper finishes every intent once`, async ({ onTestFailed }) => {
      await crashAndRecover(h, point, 'ultra', onTestFailed);
    }, 150_000);
  }
});
