import { benchSimUltra } from './simUltra.js';

// `npm run bench`: the project's speed figures. Targets live here, not in timed tests.
const seconds = Number(process.env.BENCH_SECONDS ?? 10);

console.log(`jup-keeper benchmarks (${seconds} s each; BENCH_SECONDS to change)\n`);
for (const concurrency of [1, 4, 16]) {
  const r = await benchSimUltra({ seconds, concurrency });
  console.log(
    `sim ultra order+execute, ${String(concurrency).padStart(2)} clients: ${r.perSecond.toFixed(1).padStart(6)} round trips/s ` +
      `(${r.roundTrips} in ${r.seconds.toFixed(1)} s; order p50 ${r.orderP50.toFixed(1)} ms p95 ${r.orderP95.toFixed(1)} ms; ` +
      `execute p50 ${r.executeP50.toFixed(1)} ms p95 ${r.executeP95.toFixed(1)} ms; failures ${r.failures})`,
  );
}
