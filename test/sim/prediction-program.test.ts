import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { Keypair, PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '@solana/spl-token';
import {
  DISCRIMINATORS,
  PREDICTION_PROGRAM,
  cancelOrderInstruction,
  claimPayoutInstruction,
  closeLostPositionInstruction,
  closeOrderInstruction,
  closePositionInstruction,
  createOrderInstruction,
  decodeCreateOrderData,
  decodeFillOrderData,
  fillBuyOrderInstruction,
  fillSellOrderInstruction,
  orderAtaAddress,
  predictionInstructionName,
  vaultAddress,
  type CreateOrderArgs,
} from '../../src/jupiter/programs/prediction.js';
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
import { marketIdHash, marketResultAddress, orderAddress, positionAddress, vaultTokenAccountAddress } from '../../src/sim/products/predictionSeeds.js';

const USDC = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
const key = () => Keypair.generate().publicKey;
const sha8 = (preimage: string) => createHash('sha256').update(preimage).digest().subarray(0, 8);
/** Signer/writable flags of an instruction's accounts, as 'sw', 's-', '-w' or '--'. */
const flags = (ix: TransactionInstruction) => ix.keys.map((k) => `${k.isSigner ? 's' : '-'}${k.isWritable ? 'w' : '-'}`);

describe('the prediction program discriminators', () => {
  it('are sha256("global:<snake_name>")[0..8] for every instruction', () => {
    for (const [name, bytes] of Object.entries(DISCRIMINATORS.instructions)) {
      expect(bytes.toString('hex'), name).toBe(sha8(`global:${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`).toString('hex'));
    }
  });

  it('are sha256("account:<PascalName>")[0..8] for every account, and match the generated client\'s memcmp filters', () => {
    for (const [name, bytes] of Object.entries(DISCRIMINATORS.accounts)) {
      expect(bytes.toString('hex'), name).toBe(sha8(`account:${name[0]!.toUpperCase()}${name.slice(1)}`).toString('hex'));
    }
    expect(bs58.encode(DISCRIMINATORS.accounts.order)).toBe('PXZJQQ2HEmx');
    expect(bs58.encode(DISCRIMINATORS.accounts.position)).toBe('VZMoMoKgZQb');
    expect(bs58.encode(DISCRIMINATORS.accounts.vault)).toBe('cJJWPqNMczr');
    expect(bs58.encode(DISCRIMINATORS.accounts.marketResult)).toBe('fDJyys8BJ53');
  });
});

describe('the prediction program addresses', () => {
  const owner = key();

  it('derive the same off-curve address every time', () => {
    const derived = [
      () => vaultAddress(USDC).address,
      () => orderAtaAddress(orderAddress(owner, 'ext-1').address, USDC),
      () => vaultTokenAccountAddress(USDC),
      () => orderAddress(owner, 'ext-1').address,
      () => positionAddress(owner, 'MKT-1', true).address,
      () => marketResultAddress('MKT-1').address,
    ];
    for (const derive of derived) {
      const a = derive();
      expect(a.equals(derive())).toBe(true);
      expect(PublicKey.isOnCurve(a.toBytes())).toBe(false);
    }
  });

  it('keep the vault under ["vault", mint] and the escrow as the order\'s classic-token ATA', () => {
    const { address, bump } = vaultAddress(USDC);
    expect(PublicKey.createProgramAddressSync([Buffer.from('vault'), USDC.toBuffer(), Buffer.from([bump])], PREDICTION_PROGRAM).equals(address)).toBe(true);
    const order = orderAddress(owner, 'ext-1').address;
    expect(orderAtaAddress(order, USDC).equals(getAssociatedTokenAddressSync(USDC, order, true, TOKEN_PROGRAM_ID))).toBe(true);
  });

  it('tell apart orders, sides and markets', () => {
    expect(orderAddress(owner, 'ext-1').address.equals(orderAddress(owner, 'ext-2').address)).toBe(false);
    expect(orderAddress(owner, 'ext-1').address.equals(orderAddress(key(), 'ext-1').address)).toBe(false);
    expect(positionAddress(owner, 'MKT-1', true).address.equals(positionAddress(owner, 'MKT-1', false).address)).toBe(false);
    expect(positionAddress(owner, 'MKT-1', true).address.equals(positionAddress(owner, 'MKT-2', true).address)).toBe(false);
  });

  it('hash a market id to 32 lowercase hex characters', () => {
    expect(marketIdHash('MKT-1')).toMatch(/^[0-9a-f]{32}$/);
    expect(marketIdHash('MKT-1')).toBe(marketIdHash('MKT-1'));
    expect(marketIdHash('MKT-1')).not.toBe(marketIdHash('MKT-2'));
  });
});

describe('the prediction program instructions', () => {
  const owner = key();
  const authority = key();
  const order = orderAddress(owner, 'ext-1').address;
  const position = positionAddress(owner, 'MKT-1', true).address;
  const ownerTokenAccount = getAssociatedTokenAddressSync(USDC, owner);

  it('encode create_order with its arguments and the client\'s twelve accounts', () => {
    const args: CreateOrderArgs = { externalOrderId: 'ext-1', marketId: 'MKT-1', isYes: true, isBuy: true, contracts: 3_000_000n, maxFillPriceUsd: 650_000n, depositAmount: 1_950_000n, orderType: 'limit', integrator: key(), integratorFeeBps: 25 };
    const ix = createOrderInstruction({ payer: owner, owner, authority, position, order, ownerTokenAccount, settlementMint: USDC }, args);
    // discriminator 8, two strings 4+5 each, two bools, three u64, enum 1, Some(pubkey) 33, Some(u16) 3
    expect(ix.data.length).toBe(8 + 9 + 9 + 2 + 24 + 1 + 33 + 3);
    expect(decodeCreateOrderData(ix.data)).toEqual(args);
    expect(ix.keys.map((k) => k.pubkey.toBase58())).toEqual(
      [owner, owner, authority, vaultAddress(USDC).address, position, order, ownerTokenAccount, USDC, orderAtaAddress(order, USDC), TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID, SystemProgram.programId].map((k) => k.toBase58()),
    );
    expect(flags(ix)).toEqual(['sw', 's-', 's-', '--', '-w', '-w', '-w', '--', '-w', '--', '--', '--']);
    expect(predictionInstructionName(ix)).toBe('createOrder');

    const bare = createOrderInstruction({ payer: owner, owner, authority, position, order, ownerTokenAccount, settlementMint: USDC }, { ...args, orderType: 'market', integrator: null, integratorFeeBps: null });
    expect(bare.data.length).toBe(8 + 9 + 9 + 2 + 24 + 1 + 1 + 1);
    expect(decodeCreateOrderData(bare.data)).toMatchObject({ orderType: 'market', integrator: null, integratorFeeBps: null });
  });

  it('encode both fills, putting the program id in the integrator slot when there is none', () => {
    const accounts = { authority, secondaryAuthority: key(), owner, vault: vaultAddress(USDC).address, position, order, vaultTokenAccount: vaultTokenAccountAddress(USDC), orderAta: orderAtaAddress(order, USDC), integratorTokenAccount: null };
    const buy = fillBuyOrderInstruction(accounts, { filledContracts: 3_000_000n, usd: 1_950_000n, venueFeeUsd: 20_000n, orderId: 'venue-42' });
    expect(buy.data.length).toBe(8 + 24 + 1 + 4 + 8);
    expect(decodeFillOrderData(buy.data)).toEqual({ side: 'buy', filledContracts: 3_000_000n, usd: 1_950_000n, venueFeeUsd: 20_000n, orderId: 'venue-42' });
    expect(flags(buy)).toEqual(['sw', 'sw', '-w', '-w', '-w', '-w', '-w', '-w', '--', '--']);
    expect(buy.keys[8]!.pubkey.equals(PREDICTION_PROGRAM)).toBe(true);
    expect(buy.keys[9]!.pubkey.equals(TOKEN_PROGRAM_ID)).toBe(true);

    const integratorTokenAccount = key();
    const sell = fillSellOrderInstruction({ ...accounts, integratorTokenAccount }, { filledContracts: 1_000_000n, usd: 700_000n, venueFeeUsd: 7_000n, orderId: null });
    expect(sell.data.length).toBe(8 + 24 + 1);
    expect(decodeFillOrderData(sell.data)).toEqual({ side: 'sell', filledContracts: 1_000_000n, usd: 700_000n, venueFeeUsd: 7_000n, orderId: null });
    expect(sell.keys[8]).toEqual({ pubkey: integratorTokenAccount, isSigner: false, isWritable: true });
    expect([predictionInstructionName(buy), predictionInstructionName(sell)]).toEqual(['fillBuyOrder', 'fillSellOrder']);
  });

  it('encode cancel_order and close_order as bare discriminators over the same accounts, signed by owner or authority', () => {
    const accounts = { owner, authority, order, rentDestination: owner, position, ownerTokenAccount, settlementMint: USDC };
    const cancel = cancelOrderInstruction(accounts);
    const close = closeOrderInstruction(accounts);
    expect(cancel.data).toEqual(DISCRIMINATORS.instructions.cancelOrder);
    expect(close.data).toEqual(DISCRIMINATORS.instructions.closeOrder);
    expect(cancel.keys.map((k) => k.pubkey)).toEqual(close.keys.map((k) => k.pubkey));
    expect(cancel.keys[2]!.pubkey.equals(vaultAddress(USDC).address)).toBe(true);
    expect(cancel.keys[6]!.pubkey.equals(orderAtaAddress(order, USDC))).toBe(true);
    expect(flags(cancel)).toEqual(['sw', 's-', '--', '-w', '-w', '-w', '-w', '-w', '--', '--', '--', '--']);
    expect(flags(close)).toEqual(['--', 'sw', '--', '-w', '-w', '-w', '-w', '-w', '--', '--', '--', '--']);
    expect([predictionInstructionName(cancel), predictionInstructionName(close)]).toEqual(['cancelOrder', 'closeOrder']);
  });

  it('encode the settlement instructions with the client\'s accounts', () => {
    const vault = vaultAddress(USDC).address;
    const marketResult = marketResultAddress('MKT-1').address;
    const claim = claimPayoutInstruction({ owner, vault, position, marketResult, ownerTokenAccount, vaultTokenAccount: vaultTokenAccountAddress(USDC) });
    expect(claim.data).toEqual(DISCRIMINATORS.instructions.claimPayout);
    expect(flags(claim)).toEqual(['s-', '-w', '-w', '--', '-w', '-w', '--']);
    expect(claim.keys[6]!.pubkey.equals(TOKEN_PROGRAM_ID)).toBe(true);

    const closePos = closePositionInstruction({ authority, owner, position, rentDestination: owner });
    expect(closePos.data).toEqual(DISCRIMINATORS.instructions.closePosition);
    expect(flags(closePos)).toEqual(['sw', '--', '-w', '-w']);

    const lost = closeLostPositionInstruction({ authority, vault, position, marketResult });
    expect(lost.data).toEqual(DISCRIMINATORS.instructions.closeLostPosition);
    expect(flags(lost)).toEqual(['s-', '-w', '-w', '--']);
    expect([claim, closePos, lost].map(predictionInstructionName)).toEqual(['claimPayout', 'closePosition', 'closeLostPosition']);
  });

  it('recognises no instruction of another program', () => {
    expect(predictionInstructionName(SystemProgram.transfer({ fromPubkey: owner, toPubkey: authority, lamports: 1 }))).toBeUndefined();
  });
});

describe('the prediction program accounts', () => {
  const owner = key();

  it('round-trip an order, Option and strings included', () => {
    const o: OrderAccount = {
      owner, position: positionAddress(owner, 'MKT-1', false).address, status: 'partiallyFilled', marketId: 'MKT-1', isYes: false, isBuy: true, createdAt: 1_750_000_000n,
      contracts: 5_000_000n, maxFillPriceUsd: 420_000n, filledAt: 1_750_000_060n, filledContracts: 2_000_000n, avgFillPriceUsd: 410_000n, orderId: 'venue-7', externalOrderId: 'ext-9',
      bump: 254, orderType: 'limit', payer: owner, integrator: PublicKey.default, integratorFeeBps: 0, unitVersion: 1,
    };
    const bytes = encodeOrderAccount(o);
    expect(bytes.length).toBe(8 + 32 + 32 + 1 + 9 + 2 + 8 * 6 + (1 + 4 + 7) + 9 + 1 + 1 + 32 + 32 + 2 + 1);
    expect(decodeOrderAccount(bytes)).toEqual(o);
    expect(decodeOrderAccount(encodeOrderAccount({ ...o, orderId: null }))?.orderId).toBeNull();
  });

  it('round-trip a position, a negative PnL included', () => {
    const p: PositionAccount = {
      owner, marketId: 'MKT-1', isYes: true, payoutClaimed: false, payoutClaimedUsd: 0n, openedAt: 1_750_000_000n, contracts: 3_000_000n, totalCostUsd: 1_950_000n,
      openOrders: 1, feesPaidUsd: 20_000n, realizedPnlUsd: -150_000n, updatedAt: 1_750_000_100n, bump: 253, unitVersion: 1, payer: owner,
    };
    const bytes = encodePositionAccount(p);
    expect(bytes.length).toBe(8 + 32 + 9 + 2 + 8 + 8 + 8 + 8 + 4 + 8 + 8 + 8 + 1 + 1 + 32);
    expect(decodePositionAccount(bytes)).toEqual(p);
  });

  it('round-trip a vault at the 87 bytes the client filters on', () => {
    const v: VaultAccount = {
      settlementMint: USDC, currentContracts: 10_000_000n, currentOpenOrders: 0, globalMaxContracts: 1_000_000_000_000n, positionMaxContracts: 10_000_000_000n, positionMaxOrders: 20,
      settlementDelaySeconds: 3_600n, depositsDisabled: false, withdrawalsDisabled: false, protocolFeeBps: 100, bump: vaultAddress(USDC).bump, tradingDisabled: false, unitVersion: 1,
    };
    const bytes = encodeVaultAccount(v);
    expect(bytes.length).toBe(87);
    expect(decodeVaultAccount(bytes)).toEqual(v);
  });

  it('round-trip a market result with each outcome', () => {
    for (const outcome of ['no', 'yes', 'split', 'refund'] as const) {
      const m: MarketResultAccount = { marketId: 'MKT-1', outcome, settlementTime: 1_750_003_600n, claimsEnabled: true, createdAt: 1_750_000_000n, bump: 251 };
      const bytes = encodeMarketResultAccount(m);
      expect(bytes.length).toBe(8 + 9 + 1 + 8 + 1 + 8 + 1);
      expect(decodeMarketResultAccount(bytes)).toEqual(m);
    }
  });

  it('refuse bytes of another account', () => {
    const market = encodeMarketResultAccount({ marketId: 'M', outcome: 'yes', settlementTime: 0n, claimsEnabled: false, createdAt: 0n, bump: 1 });
    expect(decodeOrderAccount(market)).toBeUndefined();
    expect(decodePositionAccount(market)).toBeUndefined();
    expect(decodeVaultAccount(market)).toBeUndefined();
    expect(decodeMarketResultAccount(Buffer.alloc(4))).toBeUndefined();
  });
});
