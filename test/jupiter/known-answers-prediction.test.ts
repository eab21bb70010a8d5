import { describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import {
  cancelOrderInstruction,
  claimPayout2Instruction,
  claimPayoutInstruction,
  closeLostPositionInstruction,
  closeOrderInstruction,
  closePositionInstruction,
  createOrderData,
  createOrderInstruction,
  decodeCreateOrderData,
  decodeFillOrderData,
  decodePredictionInstruction,
  fillBuyOrderInstruction,
  fillSellOrderInstruction,
  type CreateOrderArgs,
} from '../../src/jupiter/programs/prediction.js';
import { bool, bytes, disc, expectedMetas, key, metas, none, raw, some, str, u16, u64, u8 } from './known-answers-hand.js';

/*
 * Known answers for the Prediction Market program's instructions (issue 21), assembled by hand from its published
 * generated client (a Codama client of `prediction`: instructions/{createOrder,fillBuyOrder,fillSellOrder,closeOrder,
 * claimPayout,claimPayout2,closePosition,closeLostPosition}.ts, types/orderType.ts, pdas/vault.ts, pdas/orderAta.ts).
 * jup-keeper has no package that ships that client, so nothing here is an SDK's output: the bytes and account lists
 * are written out field by field below. Every field holds a different value (strings included), so swapping two fields of one
 * type in the encoder and the decoder alike changes the bytes; every account is a different key, so swapping two
 * account metas changes the list.
 */

const PROGRAM = new PublicKey('3ZZuTbwC6aJbvteyVxXUS7gtFYdf7AuXeitx6VyvjvUp');
const TOKEN = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const ATA_PROGRAM = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
const SYSTEM = new PublicKey('11111111111111111111111111111111');
/** pdas/vault.ts: ["vault", settlement mint] under the program. */
const vaultOf = (mint: PublicKey) => PublicKey.findProgramAddressSync([Buffer.from('vault'), mint.toBuffer()], PROGRAM)[0];
/** pdas/orderAta.ts: the order's associated token account of the settlement mint, classic token program. */
const orderAtaOf = (order: PublicKey, mint: PublicKey) => getAssociatedTokenAddressSync(mint, order, true, TOKEN, ATA_PROGRAM);
const named = (names: readonly string[], from: number) => Object.fromEntries(names.map((n, i) => [n, key(from + i).toBase58()]));

describe('create_order assembled by hand', () => {
  const args: CreateOrderArgs = {
    externalOrderId: 'ext-7f3a',
    marketId: 'KXBTC-26JAN-T100000',
    isYes: true,
    isBuy: false,
    contracts: 7_000_000n,
    maxFillPriceUsd: 650_000n,
    depositAmount: 4_602_113n,
    orderType: 'limit',
    integrator: key(9),
    integratorFeeBps: 35,
  };
  // external_order_id String, market_id String, is_yes bool, is_buy bool, contracts u64, max_fill_price_usd u64,
  // deposit_amount u64, order_type u8 enum (0 market, 1 limit), integrator Option<Pubkey>, integrator_fee_bps Option<u16>.
  const data = bytes(disc('global', 'create_order'), str('ext-7f3a'), str('KXBTC-26JAN-T100000'), bool(true), bool(false), u64(7_000_000n), u64(650_000n), u64(4_602_113n), u8(1), some(key(9).toBuffer()), some(u16(35)));

  it('has the bytes written out in full', () => {
    // 8d3625cfedd2fad7 | 08000000 "ext-7f3a" | 13000000 "KXBTC-26JAN-T100000" | 01 | 00 | c0cf6a0000000000 (7_000_000)
    // | 10eb090000000000 (650_000) | 0139460000000000 (4_602_113) | 01 | 01 + 32 × 09 | 01 2300 (35)
    expect(data.toString('hex')).toBe(
      `8d3625cfedd2fad7${'08000000'}${Buffer.from('ext-7f3a').toString('hex')}${'13000000'}${Buffer.from('KXBTC-26JAN-T100000').toString('hex')}0100c0cf6a000000000010eb0900000000000139460000000000` +
        `0101${'09'.repeat(32)}012300`,
    );
  });

  it('is what the encoder writes and the decoder reads', () => {
    expect(createOrderData(args).toString('hex')).toBe(data.toString('hex'));
    expect(decodeCreateOrderData(data)).toEqual(args);
  });

  it('a market buy of NO with no integrator: the flags and options the other way round', () => {
    const other: CreateOrderArgs = { ...args, isYes: false, isBuy: true, orderType: 'market', integrator: null, integratorFeeBps: null };
    const hand = bytes(disc('global', 'create_order'), str('ext-7f3a'), str('KXBTC-26JAN-T100000'), bool(false), bool(true), u64(7_000_000n), u64(650_000n), u64(4_602_113n), u8(0), none, none);
    expect(createOrderData(other).toString('hex')).toBe(hand.toString('hex'));
    expect(decodeCreateOrderData(hand)).toEqual(other);
  });

  it('has the published accounts and flags, vault and escrow derived', () => {
    const ix = createOrderInstruction({ payer: key(1), owner: key(2), authority: key(3), position: key(4), order: key(5), ownerTokenAccount: key(6), settlementMint: key(7) }, args);
    expect(Buffer.from(ix.data).toString('hex')).toBe(data.toString('hex'));
    expect(metas(ix)).toEqual(expectedMetas([
      [key(1), 'sw'], [key(2), 's-'], [key(3), 's-'], [vaultOf(key(7)), '--'], [key(4), '-w'], [key(5), '-w'], [key(6), '-w'], [key(7), '--'],
      [orderAtaOf(key(5), key(7)), '-w'], [TOKEN, '--'], [ATA_PROGRAM, '--'], [SYSTEM, '--'],
    ]));
  });

  it('the instruction decoder names every account and reads the arguments', () => {
    const names = ['payer', 'owner', 'authority', 'vault', 'position', 'order', 'ownerTokenAccount', 'settlementMint', 'orderAta', 'tokenProgram', 'associatedTokenProgram', 'systemProgram'];
    const d = decodePredictionInstruction(raw(PROGRAM, names.map((_, i) => key(20 + i)), data));
    expect(d).toEqual({ name: 'createOrder', accounts: named(names, 20), args });
  });
});

describe('fill_buy_order and fill_sell_order assembled by hand', () => {
  const names = ['authority', 'secondaryAuthority', 'owner', 'vault', 'position', 'order', 'vaultTokenAccount', 'orderAta', 'integratorTokenAccount', 'tokenProgram'];
  // filled_contracts u64, total_cost_usd (buy) or gross_proceeds_usd (sell) u64, venue_fee_usd u64, order_id Option<String>.
  const fill = { filledContracts: 3_000_000n, usd: 1_950_000n, venueFeeUsd: 21_000n, orderId: 'ord-55' };
  const body = bytes(u64(3_000_000n), u64(1_950_000n), u64(21_000n), some(str('ord-55')));
  const accounts = { authority: key(1), secondaryAuthority: key(2), owner: key(3), vault: key(4), position: key(5), order: key(6), vaultTokenAccount: key(7), orderAta: key(8), integratorTokenAccount: key(9) };

  for (const [side, snake, build] of [['buy', 'fill_buy_order', fillBuyOrderInstruction], ['sell', 'fill_sell_order', fillSellOrderInstruction]] as const) {
    it(`${snake}: the encoder writes the bytes and the published accounts; the decoders read them back`, () => {
      const data = bytes(disc('global', snake), body);
      const ix = build(accounts, fill);
      expect(Buffer.from(ix.data).toString('hex')).toBe(data.toString('hex'));
      expect(metas(ix)).toEqual(expectedMetas([
        [key(1), 'sw'], [key(2), 'sw'], [key(3), '-w'], [key(4), '-w'], [key(5), '-w'], [key(6), '-w'], [key(7), '-w'], [key(8), '-w'], [key(9), '-w'], [TOKEN, '--'],
      ]));
      expect(decodeFillOrderData(data)).toEqual({ side, ...fill });
      const d = decodePredictionInstruction(raw(PROGRAM, names.map((_, i) => key(30 + i)), data));
      expect(d).toEqual({ name: side === 'buy' ? 'fillBuyOrder' : 'fillSellOrder', accounts: named(names, 30), args: fill });
    });
  }

  it('without an integrator the slot holds the program, read-only, and without an order id the option is None', () => {
    const ix = fillBuyOrderInstruction({ ...accounts, integratorTokenAccount: null }, { ...fill, orderId: null });
    expect(metas(ix)[8]).toEqual([PROGRAM.toBase58(), '--']);
    expect(Buffer.from(ix.data).toString('hex')).toBe(bytes(disc('global', 'fill_buy_order'), u64(3_000_000n), u64(1_950_000n), u64(21_000n), none).toString('hex'));
  });
});

describe('the instructions without arguments: discriminator and accounts, by hand', () => {
  const CLOSE_NAMES = ['owner', 'authority', 'vault', 'order', 'rentDestination', 'position', 'orderAta', 'ownerTokenAccount', 'settlementMint', 'tokenProgram', 'systemProgram', 'associatedTokenProgram'];
  const closeAccounts = { owner: key(1), authority: key(2), order: key(3), rentDestination: key(4), position: key(5), ownerTokenAccount: key(6), settlementMint: key(7) };
  const closeList = (owner: string, authority: string) => expectedMetas([
    [key(1), owner], [key(2), authority], [vaultOf(key(7)), '--'], [key(3), '-w'], [key(4), '-w'], [key(5), '-w'], [orderAtaOf(key(3), key(7)), '-w'], [key(6), '-w'], [key(7), '--'],
    [TOKEN, '--'], [SYSTEM, '--'], [ATA_PROGRAM, '--'],
  ]);

  it('close_order: the authority signs and pays; the owner neither', () => {
    const ix = closeOrderInstruction(closeAccounts);
    expect(Buffer.from(ix.data).toString('hex')).toBe(disc('global', 'close_order').toString('hex'));
    expect(metas(ix)).toEqual(closeList('--', 'sw'));
    expect(decodePredictionInstruction(raw(PROGRAM, CLOSE_NAMES.map((_, i) => key(40 + i)), disc('global', 'close_order')))).toEqual({ name: 'closeOrder', accounts: named(CLOSE_NAMES, 40) });
  });

  it('cancel_order: the same accounts, the owner signing and paying and the authority co-signing', () => {
    // The flags are from an older generation of the client (the newest publishes no cancel_order); the order of the
    // accounts is close_order's.
    const ix = cancelOrderInstruction(closeAccounts);
    expect(Buffer.from(ix.data).toString('hex')).toBe(disc('global', 'cancel_order').toString('hex'));
    expect(metas(ix)).toEqual(closeList('sw', 's-'));
    expect(decodePredictionInstruction(raw(PROGRAM, CLOSE_NAMES.map((_, i) => key(40 + i)), disc('global', 'cancel_order')))).toEqual({ name: 'cancelOrder', accounts: named(CLOSE_NAMES, 40) });
  });

  it('claim_payout (by the owner) and claim_payout2 (by the authority)', () => {
    const names = ['claimer', 'vault', 'position', 'marketResult', 'ownerTokenAccount', 'vaultTokenAccount', 'tokenProgram'];
    const list = expectedMetas([[key(1), 's-'], [key(2), '-w'], [key(3), '-w'], [key(4), '--'], [key(5), '-w'], [key(6), '-w'], [TOKEN, '--']]);
    const rest = { vault: key(2), position: key(3), marketResult: key(4), ownerTokenAccount: key(5), vaultTokenAccount: key(6) };
    const one = claimPayoutInstruction({ owner: key(1), ...rest });
    const two = claimPayout2Instruction({ authority: key(1), ...rest });
    expect(Buffer.from(one.data).toString('hex')).toBe(disc('global', 'claim_payout').toString('hex'));
    expect(Buffer.from(two.data).toString('hex')).toBe(disc('global', 'claim_payout2').toString('hex'));
    expect(metas(one)).toEqual(list);
    expect(metas(two)).toEqual(list);
    expect(decodePredictionInstruction(raw(PROGRAM, names.map((_, i) => key(50 + i)), disc('global', 'claim_payout')))).toEqual({ name: 'claimPayout', accounts: named(names, 50) });
    expect(decodePredictionInstruction(raw(PROGRAM, names.map((_, i) => key(50 + i)), disc('global', 'claim_payout2')))).toEqual({ name: 'claimPayout2', accounts: named(names, 50) });
  });

  it('close_position and close_lost_position', () => {
    const pos = closePositionInstruction({ authority: key(1), owner: key(2), position: key(3), rentDestination: key(4) });
    expect(Buffer.from(pos.data).toString('hex')).toBe(disc('global', 'close_position').toString('hex'));
    expect(metas(pos)).toEqual(expectedMetas([[key(1), 'sw'], [key(2), '--'], [key(3), '-w'], [key(4), '-w']]));
    const posNames = ['authority', 'owner', 'position', 'rentDestination'];
    expect(decodePredictionInstruction(raw(PROGRAM, posNames.map((_, i) => key(60 + i)), disc('global', 'close_position')))).toEqual({ name: 'closePosition', accounts: named(posNames, 60) });

    const lost = closeLostPositionInstruction({ authority: key(1), vault: key(2), position: key(3), marketResult: key(4) });
    expect(Buffer.from(lost.data).toString('hex')).toBe(disc('global', 'close_lost_position').toString('hex'));
    expect(metas(lost)).toEqual(expectedMetas([[key(1), 's-'], [key(2), '-w'], [key(3), '-w'], [key(4), '--']]));
    const lostNames = ['authority', 'vault', 'position', 'marketResult'];
    expect(decodePredictionInstruction(raw(PROGRAM, lostNames.map((_, i) => key(70 + i)), disc('global', 'close_lost_position')))).toEqual({ name: 'closeLostPosition', accounts: named(lostNames, 70) });
  });
});
