import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** Ends the run with one plain line, `N passed, N failed`, so CI logs show the count at a glance. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
      }
      // A module that failed to load, or whose hooks failed (an afterAll that threw) while its tests passed, is
      // still a failure.
      if (mod.state() === 'failed' && ![...mod.children.allTests()].some((t) => t.result().state === 'failed')) failed += 1;
    }
    // A crashed worker or an unhandled rejection is a failure even when every test that ran passed.
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  }
}
