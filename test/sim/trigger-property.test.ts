import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { TriggerOrder } from '../../src/jupiter/trigger/index.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { Rng } from '../../src/sim/rng.js';
import { balances, control, fundedWallet, JUP, ledger, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

const PAIRS: Array<[string, string]> = [
  [USDC, SOL],
  [SOL, USDC],
  [USDC, JUP],
  [JUP, USDC],
  [JUP, SOL],
];
const FUNDS: Record<string, bigint> = { [USDC]: 20_000_000_000n, [JUP]: 20_000_000_000n };
const DECIMALS: Record<string, number> = { [SOL]: 9, [USDC]: 6, [JUP]: 6 };

// A property of the trigger venue: whatever happens (creates, fills at crossed limits, partial fills, cancels,
// cancel-alls, expiries, abandoned transactions, price moves), every trigger escrow holds exactly what its open
// order says it still sells, no order is left without its escrow, an order never sells more than it escrowed nor
// gets less than its limit, and each maker's tokens are accounted for by the ledger to the base unit.
describe('trigger escrows under random operations', { timeout: 300_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  beforeAll(async () => {
    sim = await startTestSim({ seed: 7 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  const usdOf = async (mint: string) => (await jup.price.getPrices({ ids: [mint] }))[mint]!.usdPrice;
  const ordersOf = async (maker: Keypair, orderStatus: 'active' | 'history') => {
    const out: TriggerOrder[] = [];
    for (let page = 1; ; page += 1) {
      const r = await jup.trigger.getOrders({ user: maker.publicKey.toBase58(), orderStatus, page });
      out.push(...r.orders);
      if (!r.hasMore) return out;
    }
  };

  for (const seed of [1, 2, 3]) {
    it(`keeps every escrow equal to what its open order holds (seed ${seed})`, async () => {
      const rng = new Rng(seed, 'trigger-property');
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!;
      const makers = await Promise.all([0, 1, 2].map(() => fundedWallet(sim, 50_000_000_000n, Object.entries(FUNDS))));
      const steps: string[] = [];

      const create = async (abandon: boolean) => {
        const maker = pick(makers);
        const [input, output] = pick(PAIRS);
        const usd = 6 + rng.next() * 2_500;
        const making = BigInt(Math.floor((usd / (await usdOf(input))) * 10 ** DECIMALS[input]!));
        // A limit from 8 % below to 8 % above the market.
        const outUsd = usd * (0.92 + rng.next() * 0.16);
        const taking = BigInt(Math.max(1, Math.floor((outUsd / (await usdOf(output))) * 10 ** DECIMALS[output]!)));
        const { nowMs } = await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET');
        const expiredAt = rng.next() < 0.3 ? Math.floor(nowMs / 1000) + 10 + Math.floor(rng.next() * 120) : undefined;
        const created = await jup.trigger.createOrder({ inputMint: input, outputMint: output, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: making, takingAmount: taking, expiredAt } });
        if (!abandon) await jup.trigger.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, maker) });
        steps.push(`${abandon ? 'abandon' : 'create'} ${created.order} ${making} for ${taking}`);
      };
      const cancel = async (all: boolean, send: boolean) => {
        const maker = pick(makers);
        const open = await ordersOf(maker, 'active');
        if (open.length === 0) return;
        const made = all ? await jup.trigger.cancelOrders({ maker: maker.publicKey.toBase58() }) : await jup.trigger.cancelOrder({ maker: maker.publicKey.toBase58(), order: pick(open).orderKey }).then((r) => ({ requestId: r.requestId, transactions: [r.transaction] }));
        if (send) for (const t of made.transactions) await jup.trigger.execute({ requestId: made.requestId, signedTransaction: signBase64(t, maker) });
        steps.push(`${all ? 'cancel-all' : 'cancel'}${send ? '' : ' (not sent)'}`);
      };

      for (let i = 0; i < 45; i += 1) {
        const r = rng.next();
        if (r < 0.3) await create(false);
        else if (r < 0.35) await create(true);
        else if (r < 0.55) {
          const mint = pick([SOL, JUP]);
          await control(sim, '/price', { mint, usd: (await usdOf(mint)) * (0.94 + rng.next() * 0.12) });
          steps.push(`price ${mint}`);
        } else if (r < 0.75) {
          await control(sim, '/clock', { advanceMs: 1_000 + Math.floor(rng.next() * 30_000) });
          steps.push('clock');
        } else if (r < 0.85) await cancel(false, rng.next() < 0.8);
        else if (r < 0.9) await cancel(true, true);
        else {
          const ids = (await Promise.all(makers.map((m) => ordersOf(m, 'active')))).flat().map((o) => o.orderKey);
          if (ids.length > 0) await control(sim, rng.next() < 0.5 ? '/orders/fill' : '/orders/expire', { order: pick(ids) });
          steps.push('control');
        }
        // Everything due at this instant done (the keeper is idempotent at a fixed time and price), then check.
        await control(sim, '/clock', { advanceMs: 0 });
        await check(makers, steps);
      }
    });
  }

  async function check(makers: Keypair[], steps: string[]): Promise<void> {
    const where = `after ${steps.length} steps: ${steps.slice(-3).join(' | ')}`;
    const escrows = (await control<{ escrows: Array<{ authority: string; product: string; amount: string; wallet: string }> }>(sim, '/escrows', undefined, 'GET')).escrows.filter((e) => e.product === 'trigger' && makers.some((m) => m.publicKey.toBase58() === e.wallet));
    const byOrder = new Map(escrows.map((e) => [e.authority, BigInt(e.amount)]));
    const open = (await Promise.all(makers.map((m) => ordersOf(m, 'active')))).flat();
    const closed = (await Promise.all(makers.map((m) => ordersOf(m, 'history')))).flat();
    for (const o of open) expect(byOrder.get(o.orderKey), `${o.orderKey} ${where}`).toBe(o.rawRemainingMakingAmount);
    const openKeys = new Set(open.map((o) => o.orderKey));
    // The only other escrows are those of orders whose creation was handed out and never sent: empty.
    for (const [order, amount] of byOrder) if (!openKeys.has(order)) expect(amount, `${order} ${where}`).toBe(0n);
    for (const o of [...open, ...closed]) {
      const sold = o.trades.reduce((s, t) => s + t.rawInputAmount, 0n);
      const got = o.trades.reduce((s, t) => s + t.rawOutputAmount, 0n);
      // What was sold plus what is left (or was refunded, for a cancelled order) is what was escrowed.
      expect(sold + o.rawRemainingMakingAmount, `${o.orderKey} ${where}`).toBe(o.rawMakingAmount);
      // Never below the limit: got / sold >= taking / making.
      expect(got * o.rawMakingAmount >= sold * o.rawTakingAmount, `${o.orderKey} ${where}`).toBe(true);
    }
    const entries = await ledger(sim);
    for (const maker of makers) {
      const mine = entries.filter((t) => t.wallet === maker.publicKey.toBase58() && t.kind.startsWith('trigger-'));
      const now = await balances(sim, maker);
      for (const mint of [USDC, JUP]) {
        const spent = mine.filter((t) => t.kind === 'trigger-create' && t.inputMint === mint).reduce((s, t) => s + BigInt(t.inputAmount!), 0n);
        const back = mine.filter((t) => t.kind !== 'trigger-create' && t.outputMint === mint).reduce((s, t) => s + BigInt(t.outputAmount!), 0n);
        expect(now.tokens[mint] ?? 0n, `${maker.publicKey.toBase58()} ${mint} ${where}`).toBe(FUNDS[mint]! - spent + back);
      }
    }
  }
});
