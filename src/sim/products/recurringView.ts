import { formatUnits } from '../../lib/amounts.js';
import type { RecurringOrdersQuery } from '../http/requests/recurring.js';
import type { Reply } from './common.js';
import type { RecurringBook, RecurringOrderState } from './recurringBook.js';

/** Orders per page of GET /recurring/v1/getRecurringOrders. */
export const RECURRING_PAGE_SIZE = 10;

/**
 * GET /recurring/v1/getRecurringOrders: a user's time-based orders, open (`active`) or ended (`history`), newest
 * first, 10 a page, under the key the request asked for (`time`, `price` or `all`, whose items carry their
 * `recurringType`). The venue opens no price-based orders (deprecated), so `price` lists are empty.
 */
export function recurringOrdersPage(book: RecurringBook, q: RecurringOrdersQuery, keeper: string): Reply {
  const wanted = book
    .ofUser(q.user)
    .filter((o) => (q.orderStatus === 'active' ? o.status === 'active' : o.status === 'closed'))
    .filter((o) => q.mint === undefined || o.input.mint === q.mint || o.output.mint === q.mint);
  const orders = q.recurringType === 'price' ? [] : wanted;
  const page = q.page ?? 1;
  const items = orders.slice((page - 1) * RECURRING_PAGE_SIZE, page * RECURRING_PAGE_SIZE).map((o) => timeOrderView(o, keeper));
  const list = q.recurringType === 'all' ? items.map((o) => ({ ...o, recurringType: 'time' })) : items;
  return {
    status: 200,
    body: { user: q.user, orderStatus: q.orderStatus, [q.recurringType]: list, totalPages: Math.max(1, Math.ceil(orders.length / RECURRING_PAGE_SIZE)), page },
  };
}

/** One time-based order in the service's shape: UI and raw amount strings, `cycleFrequency` a string, `closeTx` "" while open. */
export function timeOrderView(o: RecurringOrderState, keeper: string): Record<string, unknown> {
  const inUi = (n: bigint) => formatUnits(n, o.input.decimals);
  const outUi = (n: bigint) => formatUnits(n, o.output.decimals);
  const orderKey = o.key.toBase58();
  return {
    userPubkey: o.user.toBase58(),
    orderKey,
    inputMint: o.input.mint,
    outputMint: o.output.mint,
    inDeposited: inUi(o.inDeposited),
    inWithdrawn: inUi(o.inWithdrawn),
    rawInDeposited: o.inDeposited.toString(),
    rawInWithdrawn: o.inWithdrawn.toString(),
    cycleFrequency: String(o.cycleSeconds),
    outWithdrawn: outUi(o.outWithdrawn),
    inAmountPerCycle: inUi(o.inAmountPerCycle),
    minOutAmount: outUi(o.minOutAmount),
    maxOutAmount: outUi(o.maxOutAmount),
    inUsed: inUi(o.inUsed),
    outReceived: outUi(o.outReceived),
    rawOutWithdrawn: o.outWithdrawn.toString(),
    rawInAmountPerCycle: o.inAmountPerCycle.toString(),
    rawMinOutAmount: o.minOutAmount.toString(),
    rawMaxOutAmount: o.maxOutAmount.toString(),
    rawInUsed: o.inUsed.toString(),
    rawOutReceived: o.outReceived.toString(),
    openTx: o.openTx,
    closeTx: o.closeTx,
    userClosed: o.userClosed,
    createdAt: isoSeconds(o.createdAtMs),
    updatedAt: isoSeconds(o.updatedAtMs),
    trades: o.trades.map((t) => ({
      orderKey,
      keeper,
      inputMint: o.input.mint,
      outputMint: o.output.mint,
      inputAmount: inUi(t.inputAmount),
      outputAmount: outUi(t.outputAmount),
      rawInputAmount: t.inputAmount.toString(),
      rawOutputAmount: t.outputAmount.toString(),
      feeMint: o.output.mint,
      feeAmount: outUi(t.feeAmount),
      rawFeeAmount: t.feeAmount.toString(),
      txId: t.txId,
      confirmedAt: isoSeconds(t.confirmedAtMs),
      action: t.action,
      productMeta: null,
    })),
  };
}

/** "2025-03-11T02:51:53Z": the service's timestamps carry whole seconds. */
function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
