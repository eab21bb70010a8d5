import type { IntentKind } from '../sdk/intents.js';

/**
 * How far each product and route of the live service is proven (issue 21): the table of docs/going-live.md and
 * `config check` on a live config both print this, and test/execution/live-routes.test.ts holds it to the tests: a
 * `proven` route names corpus transactions (test/fixtures/mainnet) that pass the guard, every route names the tests
 * that check it, and that page's table is this one.
 */

/** What is known of a route on the live service. */
export type LiveStatus =
  /** Real mainnet transactions of it pass the guard for their intents (the corpus), and the tests check it. */
  | 'proven'
  /** The guard checks it (its decoder and rules are tested on the simulator's transactions), but no real bytes were found. */
  | 'checked'
  /** The guard refuses it, for the reason given. */
  | 'refused';

/** One product and route. */
export interface LiveRoute {
  /** Product (as docs/going-live.md names it). */
  product: string;
  /** The route or instruction. */
  route: string;
  /** Intent kinds that may take it, and for swaps the API they go through. */
  kinds: readonly IntentKind[];
  via?: 'ultra' | 'metis';
  /** Ultra's routers the route is (api.ultra.excludeRouters names them): excluded all, it is not taken. */
  routers?: readonly ('metis' | 'jupiterz' | 'dflow' | 'okx')[];
  status: LiveStatus;
  /** What proves it: corpus fixtures (ids under test/fixtures/mainnet) and test files. */
  fixtures: readonly string[];
  tests: readonly string[];
  /** What is left unproven, or why it is refused. */
  note: string;
}

const CORPUS = 'test/solana/corpus.test.ts';

/** Every product and route the keeper can meet on the live service. */
export const LIVE_ROUTES: readonly LiveRoute[] = Object.freeze([
  {
    product: 'Swap (Ultra)', route: 'aggregator (Metis router)', kinds: ['swap'], via: 'ultra', routers: ['metis'], status: 'proven',
    fixtures: ['ultra/aggregator/docs-metis-usdc-to-sol', 'ultra/iris/docs-sol-to-usdc'], tests: [CORPUS, 'test/e2e/hostile-venue.test.ts', 'test/solana/swap-fee.test.ts'],
    note: 'real order transactions from the docs; their effects reconstructed from the order',
  },
  {
    product: 'Swap (Ultra)', route: 'JupiterZ RFQ (market maker pays the fee, signs after the wallet)', kinds: ['swap'], via: 'ultra', routers: ['jupiterz'], status: 'proven',
    fixtures: ['ultra/rfq/docs-jupiterz-usdc-to-sol'], tests: [CORPUS, 'test/execution/ultra-rfq.test.ts', 'test/execution/ultra-rfq-hostile.test.ts'],
    note: 'the docs\' real fill; the venue holds the signed transaction until the fill expires (api.ultra.maxQuoteAge bounds it)',
  },
  {
    product: 'Swap (Ultra)', route: 'gasless (Jupiter\'s gas wallet pays the fee)', kinds: ['swap'], via: 'ultra', routers: ['metis'], status: 'checked',
    fixtures: [], tests: ['test/execution/ultra-rfq.test.ts', 'test/sim/ultra-gasless.test.ts'],
    note: 'no real gasless Ultra transaction found',
  },
  {
    product: 'Swap (Ultra)', route: 'DFlow and OKX routers', kinds: ['swap'], via: 'ultra', routers: ['dflow', 'okx'], status: 'refused',
    fixtures: [], tests: ['test/execution/ultra-rfq.test.ts'],
    note: 'their programs run at the top level: refused unless listed in venue.allowPrograms.ultra (api.ultra.excludeRouters keeps Ultra from routing there)',
  },
  {
    product: 'Swap (Metis)', route: 'quote/swap, ExactIn', kinds: ['swap'], via: 'metis', status: 'proven',
    fixtures: ['swap/metis-exact-in/live-usdc-to-sol-route', 'swap/metis-exact-in/sol-usdc-shared-accounts', 'swap/metis-exact-in/token-usdt-multi-leg'], tests: [CORPUS, 'test/execution/swap-metis.test.ts'],
    note: 'landed transactions with their recorded inner instructions and balances',
  },
  {
    product: 'Swap (Metis)', route: 'quote/swap, ExactOut', kinds: ['swap'], via: 'metis', status: 'checked',
    fixtures: [], tests: ['test/engine/risk-exact-out.test.ts', 'test/solana/swap-bounds-known.test.ts'],
    note: 'no real ExactOut transaction found',
  },
  {
    product: 'Trigger (limit orders)', route: 'createOrder, cancelOrder', kinds: ['trigger.create', 'trigger.cancel'], status: 'proven',
    fixtures: ['trigger/create/docs-v1-sol-for-usdc', 'trigger/create/docs-v2-usdc-for-sol', 'trigger/cancel/docs-v1-sol-order'], tests: [CORPUS, 'test/execution/hostile-escrows-orders.test.ts'],
    note: 'real transactions from the docs; the order account and effects reconstructed',
  },
  {
    product: 'Recurring (DCA)', route: 'createOrder, cancelOrder (time-based)', kinds: ['recurring.create', 'recurring.cancel'], status: 'proven',
    fixtures: ['recurring/create/docs-sol-to-usdc', 'recurring/cancel/docs-usdc-to-sol'], tests: [CORPUS, 'test/execution/hostile-escrows-orders.test.ts'],
    note: 'real transactions from the docs; the DCA account and effects reconstructed',
  },
  {
    product: 'Lend (Earn)', route: 'deposit', kinds: ['lend.deposit'], status: 'proven',
    fixtures: ['lend/deposit/docs-usdc'], tests: [CORPUS, 'test/execution/hostile-escrows-lend.test.ts'],
    note: 'a real deposit from the docs; the lending account and effects reconstructed',
  },
  {
    product: 'Lend (Earn)', route: 'withdraw, mint, redeem and the four bounded variants', kinds: ['lend.withdraw', 'lend.mint', 'lend.redeem'], status: 'checked',
    fixtures: [], tests: ['test/execution/hostile-escrows-lend.test.ts', 'test/execution/lend-variants.test.ts'],
    note: 'no real bytes found; which instruction the API returns is not known',
  },
  {
    product: 'Send', route: 'token and native-SOL invites, clawback', kinds: ['send', 'send.clawback'], status: 'checked',
    fixtures: [], tests: ['test/execution/hostile-escrows-send.test.ts', 'test/execution/send-variants.test.ts'],
    note: 'no real craft-send transaction found',
  },
  {
    product: 'Prediction', route: 'buy (live layout: market id hash, deposit routed through the aggregator)', kinds: ['prediction.buy'], status: 'proven',
    fixtures: ['prediction/create-order/live-buy-yes-usdc-routed', 'prediction/create-order/live-buy-no-gasless-routed'], tests: [CORPUS, 'test/execution/prediction-variants.test.ts', 'test/solana/guard-prediction-funding-layouts.test.ts', 'test/execution/prediction-gasless.test.ts', 'test/execution/prediction-gasless-hostile.test.ts'],
    note: 'live orders captured from the API (one gasless: Jupiter\'s gas payer pays the fee and rent); their effects reconstructed',
  },
  {
    product: 'Prediction', route: 'sell, close position (gasless)', kinds: ['prediction.sell', 'prediction.closePosition'], status: 'proven',
    fixtures: ['prediction/close-position/live-sell-no-gasless'], tests: [CORPUS, 'test/execution/hostile-escrows-prediction.test.ts', 'test/execution/prediction-gasless.test.ts'],
    note: 'a live close captured from the API; its effects reconstructed',
  },
  {
    product: 'Prediction', route: 'close order, claim', kinds: ['prediction.closeOrder', 'prediction.claim'], status: 'checked',
    fixtures: [], tests: ['test/execution/hostile-escrows-prediction.test.ts', 'test/keeper/claims.test.ts'],
    note: 'no real close or claim_payout transaction found',
  },
] satisfies LiveRoute[]);

/** The routes an intent of `kind` (through `via`, for a swap) may take, but those whose routers are all excluded. */
export function liveRoutesOf(kind: IntentKind, via?: 'ultra' | 'metis', excludedRouters: ReadonlySet<string> = new Set()): LiveRoute[] {
  return LIVE_ROUTES.filter((r) => r.kinds.includes(kind) && (r.via === undefined || via === undefined || r.via === via) && !(r.routers?.every((x) => excludedRouters.has(x)) ?? false));
}

/** The table as docs/going-live.md prints it (markdown). */
export function liveTableMarkdown(): string {
  const rows = LIVE_ROUTES.map((r) => `| ${r.product} | ${r.route} | ${r.status} | ${r.note} |`);
  return ['| product | route | live transactions | notes |', '|---|---|---|---|', ...rows].join('\n');
}
