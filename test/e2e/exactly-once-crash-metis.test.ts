import { afterAll, beforeAll, describe, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/exactlyOnce.js';
import { crashAndRecover } from '../helpers/crashScenario.js';

// The same crash points for Metis swaps (quote + swap, sent through RPC, no requestId): a signed transaction is
// re-sent as the same bytes, and the chain's signature index keeps a second copy from settling.
describe.concurrent('exactly once across a crash, via Metis (RPC)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('crash-metis');
  });
  afterAll(async () => {
    await h?.close();
  });

  for (const point of ['after-build', 'after-sign', 'after-submit'] as const) {
    it(`crash ${point}: the restarted keeper finishes every intent once`, async ({ onTestFailed }) => {
      await crashAndRecover(h, point, 'metis', onTestFailed);
    }, 150_000);
  }
});
