import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient } from '../src/jupiter/client.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** Result of the Ultra round-trip benchmark. */
export interface SimUltraResult {
  roundTrips: number;
  seconds: number;
  perSecond: number;
  orderP50: number;
  orderP95: number;
  executeP50: number;
  executeP95: number;
  failures: number;
}

/**
 * How many Ultra order+sign+execute round trips per second the simulator sustains: the simulator runs in its own
 * process (`jup-keeper sim`), `concurrency` clients each with its own funded wallet drive it over HTTP for
 * `seconds`, and every round trip settles a real transaction on its ledger. With `url`, an already running simulator
 * is driven instead (the end-to-end benchmark compares the keeper with this on the same simulator process).
 */
export async function benchSimUltra(o: { seconds: number; concurrency: number; url?: string }): Promise<SimUltraResult> {
  if (o.url) return driveUltra(o.url, o);
  const port = 18000 + Math.floor(Math.random() * 2000);
  const child = spawn(process.execPath, [resolve(import.meta.dirname, '../bin/jup-keeper.js'), 'sim', '--port', String(port), '--seed', '7', '--clock-speed', '1'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await new Promise<void>((res, rej) => {
      child.stdout.on('data', (d: Buffer) => (d.toString().includes('jupiter api') ? res() : undefined));
      child.once('exit', (code) => rej(new Error(`sim exited with ${code}`)));
    });
    return await driveUltra(url, o);
  } finally {
    child.kill('SIGTERM');
  }
}

/** `concurrency` funded clients doing order+sign+execute round trips against `url` for `seconds`. */
async function driveUltra(url: string, o: { seconds: number; concurrency: number }): Promise<SimUltraResult> {
  const jup = createJupiterClient({ baseUrl: url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  const wallets = await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      const kp = Keypair.generate();
      const r = await fetch(`${url}/__sim/airdrop`, { method: 'POST', body: JSON.stringify({ wallet: kp.publicKey.toBase58(), mint: SOL, amount: '1000000000000' }) });
      if (!r.ok) throw new Error(`airdrop failed: ${await r.text()}`);
      return kp;
    }),
  );
  const orderMs: number[] = [];
  const executeMs: number[] = [];
  let failures = 0;
  const deadline = performance.now() + o.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    wallets.map(async (kp) => {
      while (performance.now() < deadline) {
        try {
          const t0 = performance.now();
          const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 10_000_000n, taker: kp.publicKey.toBase58() });
          const t1 = performance.now();
          const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64'));
          tx.sign([kp]);
          await jup.ultra.executeOrder({ signedTransaction: Buffer.from(tx.serialize()).toString('base64'), requestId: order.requestId });
          orderMs.push(t1 - t0);
          executeMs.push(performance.now() - t1);
        } catch {
          failures += 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    roundTrips: executeMs.length,
    seconds,
    perSecond: executeMs.length / seconds,
    orderP50: pct(orderMs, 0.5),
    orderP95: pct(orderMs, 0.95),
    executeP50: pct(executeMs, 0.5),
    executeP95: pct(executeMs, 0.95),
    failures,
  };
}

function pct(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
