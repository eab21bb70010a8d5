import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Keypair } from '@solana/web3.js';
import type { JupiterClient } from '../../src/jupiter/client.js';
import type { TimeRecurringOrder } from '../../src/jupiter/recurring/index.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { control, fundedWallet, JUP, ledger, SOL, startTestSim, USDC } from '../helpers/sim.js';
import { cancelRecurringOrder, eventually, openRecurringOrder, recurringClient, timeOrders } from './recurringKit.js';

describe('a recurring order of 3 slices at a fast clock', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    // 100 simulated seconds per real second: a 60 s interval passes in 0.6 s, a blockhash lives 0.6 s.
    sim = await startTestSim({ clockSpeed: 100 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('fills 3 times and then shows in history', async () => {
    const jup = recurringClient(sim);
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 300_000_000n]]);
    const { order } = await openRecurringOrder(sim, jup, user, { inputMint: USDC, outputMint: SOL, inAmount: 300_000_000n, numberOfOrders: 3, interval: 60 });
    const [done] = await eventually('the order in history', async () => {
      const history = await timeOrders(jup, user, 'history');
      return history.length > 0 ? history : undefined;
    });
    expect(done).toMatchObject({ orderKey: order, rawInUsed: 300_000_000n, rawInWithdrawn: 0n, userClosed: false });
    expect(done!.trades).toHaveLength(3);
    expect(done!.trades.map((t) => t.rawInputAmount)).toEqual([100_000_000n, 100_000_000n, 100_000_000n]);
    // The order account closes with the last fill.
    expect(done!.closeTx).toBe(done!.trades[0]!.txId);
    expect(await timeOrders(jup, user, 'active')).toEqual([]);
    const fills = (await ledger(sim)).filter((t) => t.kind === 'recurring-fill' && t.wallet === user.publicKey.toBase58());
    expect(fills.map((t) => t.signature).sort()).toEqual(done!.trades.map((t) => t.txId).sort());
  });
});

/** A small seeded generator: the same sequence of operations on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('recurring escrows after a random sequence of operations', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = recurringClient(sim);
  });
  afterAll(async () => {
    await sim.close();
  });

  const recurringEscrows = async () => {
    const { escrows } = await control<{ escrows: Array<{ product: string; authority: string; amount: string }> }>(sim, '/escrows', undefined, 'GET');
    return escrows.filter((e) => e.product === 'recurring');
  };

  /**
   * Every recurring escrow holds exactly what its order says it has left (an ended or unopened order: nothing). The
   * keeper runs on its own timer between two reads, so the orders are compared with escrows read just before and
   * just after them, and only once both reads agree (nothing moved meanwhile).
   */
  async function checkEscrows(users: Keypair[]): Promise<number> {
    const { open, mine } = await eventually('a quiet moment of the keeper', async () => {
      const before = await recurringEscrows();
      const open = new Map<string, TimeRecurringOrder>();
      for (const u of users) for (const o of await timeOrders(jup, u, 'active')) open.set(o.orderKey, o);
      const after = await recurringEscrows();
      return JSON.stringify(before) === JSON.stringify(after) ? { open, mine: after } : undefined;
    });
    for (const e of mine) {
      const o = open.get(e.authority);
      expect(BigInt(e.amount), `escrow of ${e.authority}`).toBe(o ? o.rawInDeposited - o.rawInUsed - o.rawInWithdrawn : 0n);
    }
    for (const key of open.keys()) expect(mine.some((e) => e.authority === key), `escrow of open order ${key}`).toBe(true);
    return open.size;
  }

  it('equal the sum of what their open orders say they hold', async () => {
    const random = rng(20_260_821);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const users = [
      await fundedWallet(sim, 20_000_000_000n, [[USDC, 5_000_000_000n]]),
      await fundedWallet(sim, 20_000_000_000n, [[USDC, 5_000_000_000n]]),
    ];
    const pairs = [[USDC, SOL], [SOL, USDC], [USDC, JUP]] as const;
    const ops: string[] = [];
    let maxOpen = 0;
    for (let step = 0; step < 40; step += 1) {
      const roll = random();
      const user = pick(users);
      const active = await timeOrders(jup, user, 'active');
      if (roll < 0.35 || active.length === 0) {
        const [inputMint, outputMint] = pick(pairs);
        const slices = 2 + Math.floor(random() * 3);
        const inAmount = inputMint === SOL ? BigInt(slices) * 400_000_000n + BigInt(Math.floor(random() * 1000)) : BigInt(slices) * 60_000_000n + BigInt(Math.floor(random() * 1000));
        const interval = pick([60, 300, 3600]);
        const bounds = random() < 0.3 ? { maxPrice: inputMint === SOL ? 150 : 1 / 250 } : {};
        await openRecurringOrder(sim, jup, user, { inputMint, outputMint, inAmount, numberOfOrders: slices, interval, ...bounds });
        ops.push(`create ${slices}x${interval}s`);
      } else if (roll < 0.5) {
        await cancelRecurringOrder(jup, user, pick(active).orderKey);
        ops.push('cancel');
      } else if (roll < 0.7) {
        await control(sim, '/clock', { advanceMs: Math.floor(random() * 900_000) });
        ops.push('clock');
      } else if (roll < 0.8) {
        await control(sim, '/price', { mint: SOL, usd: 120 + Math.floor(random() * 120) });
        ops.push('price');
      } else if (roll < 0.9) {
        await control(sim, '/orders/fill', { order: pick(active).orderKey });
        ops.push('fill');
      } else {
        await control(sim, '/orders/expire', { order: pick(active).orderKey });
        ops.push('expire');
      }
      maxOpen = Math.max(maxOpen, await checkEscrows(users));
    }
    // The sequence did reach the interesting states: several orders open at once, each kind of operation run.
    expect(maxOpen).toBeGreaterThan(2);
    expect(new Set(ops.map((o) => o.split(' ')[0]))).toEqual(new Set(['create', 'cancel', 'clock', 'price', 'fill', 'expire']));
    // Ended orders used or returned every unit they took.
    for (const u of users) for (const o of await timeOrders(jup, u, 'history')) expect(o.rawInUsed + o.rawInWithdrawn).toBe(o.rawInDeposited);
    expect(sim.ctx.state.venue.lastKeeperError ?? '').not.toMatch(/^recurring/);
  });
});
