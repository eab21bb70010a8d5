import { describe, expect, it } from 'vitest';
import {
  decodeMarketResultAccount,
  decodeOrderAccount,
  decodePositionAccount,
  decodeVaultAccount,
  encodeMarketResultAccount,
  encodeOrderAccount,
  encodePositionAccount,
  encodeVaultAccount,
  type MarketResultAccount,
  type OrderAccount,
  type PositionAccount,
  type VaultAccount,
} from '../../src/jupiter/programs/predictionAccounts.js';
import { bool, bytes, disc, i64, key, none, some, str, u16, u32, u64, u8 } from './known-answers-hand.js';

/*
 * Known answers for the Prediction Market program's accounts (issue 21), assembled by hand from its published
 * generated client (accounts/{order,position,vault,marketResult}.ts, types/{orderStatus,orderType}.ts). The
 * project's encoder must write these bytes and its decoder read them to exactly these values. Every field holds a
 * value no other field of its type holds (and, where there are three bools, two vectors between them tell every
 * pair apart), so swapping two fields in the encoder and the decoder alike is caught.
 */

describe('the Order account', () => {
  const order: OrderAccount = {
    owner: key(1),
    position: key(2),
    status: 'partiallyFilled',
    marketId: 'KXBTC-26JAN-T100000',
    isYes: false,
    isBuy: true,
    createdAt: 1_760_000_001n,
    contracts: 9_000_000n,
    maxFillPriceUsd: 720_000n,
    filledAt: 1_760_000_099n,
    filledContracts: 4_500_000n,
    avgFillPriceUsd: 701_234n,
    orderId: 'venue-42',
    externalOrderId: 'ext-7f3a',
    bump: 250,
    orderType: 'market',
    payer: key(3),
    integrator: key(4),
    integratorFeeBps: 35,
    unitVersion: 1,
  };
  // owner Pubkey, position Pubkey, status u8 enum (0 pending, 1 filled, 2 failed, 3 partiallyFilled, 4 cancelled),
  // market_id String, is_yes bool, is_buy bool, created_at i64, contracts u64, max_fill_price_usd u64, filled_at i64,
  // filled_contracts u64, avg_fill_price_usd u64, order_id Option<String>, external_order_id String, bump u8,
  // order_type u8 enum (0 market, 1 limit), payer Pubkey, integrator Pubkey, integrator_fee_bps u16, unit_version u8.
  const hand = (orderId: Buffer) =>
    bytes(
      disc('account', 'Order'),
      key(1).toBuffer(), key(2).toBuffer(), u8(3), str('KXBTC-26JAN-T100000'), bool(false), bool(true),
      i64(1_760_000_001n), u64(9_000_000n), u64(720_000n), i64(1_760_000_099n), u64(4_500_000n), u64(701_234n),
      orderId, str('ext-7f3a'), u8(250), u8(0), key(3).toBuffer(), key(4).toBuffer(), u16(35), u8(1),
    );

  it('is what the encoder writes and the decoder reads', () => {
    const data = hand(some(str('venue-42')));
    expect(encodeOrderAccount(order).toString('hex')).toBe(data.toString('hex'));
    expect(decodeOrderAccount(data)).toEqual(order);
  });

  it('before the venue names it, the order id is None and what follows moves up', () => {
    const data = hand(none);
    expect(encodeOrderAccount({ ...order, orderId: null }).toString('hex')).toBe(data.toString('hex'));
    expect(decodeOrderAccount(data)).toEqual({ ...order, orderId: null });
  });
});

describe('the Position account', () => {
  const position: PositionAccount = {
    owner: key(5),
    marketId: 'MKT-POS-1',
    isYes: true,
    payoutClaimed: false,
    payoutClaimedUsd: 1_111n,
    openedAt: 1_760_000_010n,
    contracts: 2_222_000n,
    totalCostUsd: 3_333_000n,
    openOrders: 2,
    feesPaidUsd: 44_444n,
    realizedPnlUsd: -55_555n,
    updatedAt: 1_760_000_066n,
    bump: 249,
    unitVersion: 1,
    payer: key(6),
  };
  // owner Pubkey, market_id String, is_yes bool, payout_claimed bool, payout_claimed_usd u64, opened_at i64,
  // contracts u64, total_cost_usd u64, open_orders u32, fees_paid_usd u64, realized_pnl_usd i64, updated_at i64,
  // bump u8, unit_version u8, payer Pubkey.
  const data = bytes(
    disc('account', 'Position'),
    key(5).toBuffer(), str('MKT-POS-1'), bool(true), bool(false), u64(1_111n), i64(1_760_000_010n), u64(2_222_000n), u64(3_333_000n),
    u32(2), u64(44_444n), i64(-55_555n), i64(1_760_000_066n), u8(249), u8(1), key(6).toBuffer(),
  );

  it('is what the encoder writes and the decoder reads (a negative realized P&L included)', () => {
    expect(encodePositionAccount(position).toString('hex')).toBe(data.toString('hex'));
    expect(decodePositionAccount(data)).toEqual(position);
  });
});

describe('the Vault account (87 bytes)', () => {
  const vault: VaultAccount = {
    settlementMint: key(7),
    currentContracts: 10_000_001n,
    currentOpenOrders: 3,
    globalMaxContracts: 900_000_000_002n,
    positionMaxContracts: 50_000_003n,
    positionMaxOrders: 25,
    settlementDelaySeconds: 3_600n,
    depositsDisabled: true,
    withdrawalsDisabled: false,
    protocolFeeBps: 40,
    bump: 248,
    tradingDisabled: false,
    unitVersion: 1,
  };
  // settlement_mint Pubkey, current_contracts u64, current_open_orders u32, global_max_contracts u64,
  // position_max_contracts u64, position_max_orders u32, settlement_delay_seconds u64, deposits_disabled bool,
  // withdrawals_disabled bool, protocol_fee_bps u16, bump u8, trading_disabled bool, unit_version u8.
  const hand = (deposits: boolean, withdrawals: boolean, trading: boolean) =>
    bytes(
      disc('account', 'Vault'),
      key(7).toBuffer(), u64(10_000_001n), u32(3), u64(900_000_000_002n), u64(50_000_003n), u32(25), u64(3_600n),
      bool(deposits), bool(withdrawals), u16(40), u8(248), bool(trading), u8(1),
    );

  it('is what the encoder writes and the decoder reads, each of the three switches on its own', () => {
    for (const [d, w, t] of [[true, false, false], [false, true, false], [false, false, true]] as const) {
      const v = { ...vault, depositsDisabled: d, withdrawalsDisabled: w, tradingDisabled: t };
      const data = hand(d, w, t);
      expect(data.length).toBe(87);
      expect(encodeVaultAccount(v).toString('hex'), `${d} ${w} ${t}`).toBe(data.toString('hex'));
      expect(decodeVaultAccount(data)).toEqual(v);
    }
  });
});

describe('the MarketResult account', () => {
  // market_id String, outcome u8 (0 no, 1 yes, 2 split, 3 refund), settlement_time i64, claims_enabled bool,
  // created_at i64, bump u8.
  for (const [outcome, code] of [['no', 0], ['yes', 1], ['split', 2], ['refund', 3]] as const) {
    it(`outcome ${outcome} (${code}) is what the encoder writes and the decoder reads`, () => {
      const result: MarketResultAccount = { marketId: 'MKT-RES-9', outcome, settlementTime: 1_770_000_000n, claimsEnabled: true, createdAt: 1_769_000_000n, bump: 247 };
      const data = bytes(disc('account', 'MarketResult'), str('MKT-RES-9'), u8(code), i64(1_770_000_000n), bool(true), i64(1_769_000_000n), u8(247));
      expect(encodeMarketResultAccount(result).toString('hex')).toBe(data.toString('hex'));
      expect(decodeMarketResultAccount(data)).toEqual(result);
    });
  }
});
