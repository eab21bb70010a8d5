import { describe, expect, it } from 'vitest';
import type { VersionedTransaction } from '@solana/web3.js';
import { rewriteProductTransaction, type ProductAttack, type ProductKind } from '../helpers/hostileProducts.js';
import { attackMoves, type MoveAttack } from '../helpers/mainnetShapeAttacks.js';
import { rulesOf, useMainnetShapeWorld, type ProductCase, type ProductIntentKind } from '../helpers/mainnetShapeWorld.js';

/**
 * One attack of the table and the rules that refuse it (exactly these, in both shapes): on the product instruction's
 * terms and the moves with them (hostileProducts.ts), or on the moves alone, the instruction as the venue built it
 * (mainnetShapeAttacks.ts: on mainnet, what the program does inside its instruction).
 */
type Row = { on: 'terms'; attack: ProductAttack; rules: string[] } | { on: 'moves'; attack: MoveAttack; rules: string[] };
const terms = (attack: ProductAttack, rules: string[]): Row => ({ on: 'terms', attack, rules });
const moves = (attack: MoveAttack, rules: string[]): Row => ({ on: 'moves', attack, rules });

/** The deposit goes elsewhere than the escrow the instruction names, which still names the honest one. */
const DEPOSIT_ELSEWHERE = ['destination', 'escrow-amount'];
/** The instruction names the stranger's account as its escrow, and the deposit goes there. */
const ESCROW_STRANGER = ['destination', 'escrow-amount', 'product-escrow'];
/** The instruction's amount and the deposit with it are 10 % over the intent's. */
const AMOUNT_UP = ['escrow-amount', 'product-amount', 'token-outflow'];
/** The instruction names the stranger's account for the payout, and the payout goes there. */
const PAYOUT_STRANGER = ['payout-destination', 'payout-short', 'product-payout'];
/** The instruction names the wallet's account; inside it, the escrow or vault pays the stranger. */
const PAYOUT_INSIDE = ['payout-destination', 'payout-short'];
/** The rent of an account the instruction does not name: refused as a creation, and as SOL the intent does not spend. */
const EXTRA_CREATE = ['created-account', 'sol-outflow'];
const deposits = (): Row[] => [
  moves({ kind: 'deposit-stranger' }, DEPOSIT_ELSEWHERE),
  moves({ kind: 'deposit-other-escrow' }, DEPOSIT_ELSEWHERE),
  moves({ kind: 'deposit-drain' }, ['escrow-amount']),
  moves({ kind: 'approve-stranger' }, ['token-account']),
  moves({ kind: 'extra-create' }, EXTRA_CREATE),
];
const payouts = (extraCreate = EXTRA_CREATE): Row[] => [
  moves({ kind: 'payout-stranger-inside' }, PAYOUT_INSIDE),
  moves({ kind: 'payout-short' }, ['payout-short']),
  moves({ kind: 'approve-stranger' }, ['token-account']),
  moves({ kind: 'extra-create' }, extraCreate),
];

const TABLE: Array<[ProductIntentKind, Row[]]> = [
  ['trigger.create', [terms({ kind: 'escrow-stranger' }, ESCROW_STRANGER), terms({ kind: 'amount' }, AMOUNT_UP), ...deposits()]],
  ['trigger.cancel', [terms({ kind: 'payout-stranger' }, PAYOUT_STRANGER), ...payouts()]],
  ['recurring.create', [terms({ kind: 'escrow-stranger' }, ESCROW_STRANGER), terms({ kind: 'amount' }, AMOUNT_UP), ...deposits()]],
  // A recurring cancel pays back SOL too (the output bought so far; none yet here, so nothing is owed in SOL).
  ['recurring.cancel', [terms({ kind: 'payout-stranger' }, PAYOUT_STRANGER), ...payouts()]],
  [
    'lend.deposit',
    [
      terms({ kind: 'escrow-stranger' }, ESCROW_STRANGER),
      terms({ kind: 'amount' }, AMOUNT_UP),
      terms({ kind: 'share-stranger' }, ['payout-destination', 'payout-short', 'product-share-token']),
      ...deposits(),
      // Shares minted elsewhere, or fewer: nothing leaves the wallet, what must arrive does not.
      moves({ kind: 'mint-stranger' }, PAYOUT_INSIDE),
      moves({ kind: 'payout-short' }, ['payout-short']),
    ],
  ],
  ['lend.withdraw', [terms({ kind: 'payout-stranger' }, PAYOUT_STRANGER), terms({ kind: 'amount' }, ['product-amount']), ...payouts(), moves({ kind: 'burn-more' }, ['token-outflow'])]],
  ['lend.mint', [...deposits(), moves({ kind: 'mint-stranger' }, PAYOUT_INSIDE), moves({ kind: 'payout-short' }, ['payout-short'])]],
  ['lend.redeem', [...payouts(), moves({ kind: 'burn-more' }, ['token-outflow'])]],
  ['prediction.buy', [terms({ kind: 'escrow-stranger' }, ESCROW_STRANGER), terms({ kind: 'amount' }, AMOUNT_UP), ...deposits()]],
  // A sell moves nothing when it is placed: only its terms and an extra creation.
  ['prediction.sell', [terms({ kind: 'amount' }, ['product-amount']), moves({ kind: 'extra-create' }, EXTRA_CREATE)]],
  ['prediction.closeOrder', [terms({ kind: 'payout-stranger' }, PAYOUT_STRANGER), ...payouts()]],
  ['prediction.claim', [terms({ kind: 'payout-stranger' }, PAYOUT_STRANGER), ...payouts()]],
  ['send', [terms({ kind: 'escrow-stranger' }, ESCROW_STRANGER), terms({ kind: 'amount' }, AMOUNT_UP), ...deposits()]],
  ['send.clawback', [terms({ kind: 'payout-stranger' }, PAYOUT_STRANGER), ...payouts()]],
];

// Issue 20, item 7: each attack on a product's transaction is refused with the same rules in both shapes: with the
// moves beside the product instruction (as the simulator builds them) and inside it (the mainnet twin, its moves the
// product instruction's inner instructions). The attacks on the moves alone are the ones only mainnet's shape hides
// from the product rules: the instruction names the right accounts, and what the program does inside it does not.
describe('attacks on product transactions, refused alike in both shapes', { timeout: 240_000 }, () => {
  const w = useMainnetShapeWorld('guard-mainnet-shape-attacks');

  const attacked = (c: ProductCase, row: Row): VersionedTransaction => {
    const ctx = { venue: w.venue, wallet: c.s.wallet.publicKey, stranger: w.stranger };
    return row.on === 'terms' ? rewriteProductTransaction(c.built.tx, c.kind as ProductKind, row.attack, ctx).tx : attackMoves(c.built.tx, row.attack, { ...ctx, program: c.program }).tx;
  };

  it.each(TABLE)('%s', async (kind, rows) => {
    const c = await w.prepare(kind);
    const found: string[] = [];
    const wanted: string[] = [];
    for (const row of rows) {
      const tx = attacked(c, row);
      const name = `${row.on}:${row.attack.kind}`;
      found.push(`${name} sim=${rulesOf(await w.guardSim(c, tx)).join(',')} mainnet=${rulesOf(await w.guardMainnet(c, w.twinOf(c, tx))).join(',')}`);
      wanted.push(`${name} sim=${row.rules.join(',')} mainnet=${row.rules.join(',')}`);
    }
    expect(found).toEqual(wanted);
    expect(w.front.unknownSimulations).toBe(0);
  });
});
