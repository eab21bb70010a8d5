// buy-the-dip: an example of a strategy of your own (docs/strategies.md, "Write your own strategy").
// Keeps the highest price it has seen; when the token falls more than `dropPct` below it, buys with a fixed amount
// of a stable coin (at most once every `cooldownHours`), and starts watching for the next high. Name it in a config,
// by its path relative to the config file:
//   strategy: ./strategies/buy-the-dip.ts
import { baseUnitsParam, defineStrategy, mintParam, z } from 'jup-keeper/sdk';

const params = z.strictObject({
  /** What to buy: a symbol (SOL, JUP, ...) or a mint address. */
  buy: mintParam,
  /** What to pay with. */
  with: mintParam.prefault('USDC'),
  /** How much to pay per buy, in base units of `with` ("25000000" is 25 USDC). */
  amount: baseUnitsParam,
  /** Buy when the price is this many percent below the highest seen. */
  dropPct: z.number().positive().max(90),
  /** Hours between two buys. */
  cooldownHours: z.number().min(0).default(24),
});

/** What the strategy keeps between decisions (plain data: it is stored as JSON). */
interface State extends Record<string, unknown> {
  /** The highest USD price seen since the last buy. */
  highUsd?: number;
  /** When the last buy was decided, unix ms. */
  lastBuyAt?: number;
}

export default defineStrategy<typeof params, State>({
  name: 'buy-the-dip',
  version: '1.0.0',
  sdk: 1,
  description: 'buys a fixed amount of a token when it falls dropPct below the highest price seen',
  params,
  watches: (p) => ({ mints: [p.buy, p.with] }),
  decide: (ctx) => {
    const p = ctx.params;
    const usd = ctx.price(p.buy)?.usd;
    if (usd === undefined) return []; // no price yet: nothing to decide on
    const high = Math.max(ctx.state.highUsd ?? usd, usd);
    const keep = { intents: [], state: { ...ctx.state, highUsd: high } };
    const dropped = (1 - usd / high) * 100;
    if (dropped < p.dropPct) return keep;
    // A buy already asked for and not yet in the wallet: do not ask again.
    if (ctx.pendingIntents.some((i) => i.kind === 'swap')) return keep;
    if (ctx.state.lastBuyAt !== undefined && ctx.now - ctx.state.lastBuyAt < p.cooldownHours * 3_600_000) return keep;
    if (ctx.wallet.balance(p.with) < p.amount) {
      ctx.log.warn('not enough to buy the dip', { have: ctx.wallet.balance(p.with).toString(), need: p.amount.toString() });
      return keep;
    }
    return {
      intents: [{ kind: 'swap', inputMint: p.with, outputMint: p.buy, amount: p.amount, reason: `${dropped.toFixed(1)} % below its high of $${high.toFixed(2)}` }],
      // The next buy waits for a new high and a new drop from it.
      state: { highUsd: usd, lastBuyAt: ctx.now },
    };
  },
});
