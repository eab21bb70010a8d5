import { describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import {
  cancelOrderInstruction,
  decodeOrderAccount,
  decodeTriggerInstruction,
  encodeOrderAccount,
  fillOrderInstruction,
  initializeOrderData,
  initializeOrderInstruction,
  orderAddress,
  type OrderAccount,
} from '../../src/jupiter/programs/trigger.js';
import { bytes, disc, i64, instructionsOf, key, metas, none, raw, some, u16, u32, u64, u8 } from './known-answers-hand.js';

/*
 * Known answers for the Limit Order v2 program behind the Trigger API (issue 21): a real transaction from Jupiter's
 * spec, and vectors assembled by hand from the program's published layout (sevenlabs-hq/carbon,
 * decoders/jupiter-limit-order-2-decoder: types/initialize_order_params.rs, accounts/order.rs,
 * instructions/{initialize_order,cancel_order,fill_order}.rs, types/fill_order_params.rs). Every field holds a
 * different value, so two fields of one type swapped in the encoder and the decoder alike change the bytes.
 */

const PROGRAM = new PublicKey('j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X');
// The fee account and the event authority as they appear in the spec's transaction below.
const FEE = new PublicKey('27ZASRjinQgXKsrijKqb9xyRnH6W5KWgLSDveRghvHqc');
const EVENT_AUTHORITY = new PublicKey('ArsDfE54RTkC3zhtzPdtvTtKw9XSV5w1PCTBFVGiLd52');
const SYSTEM = new PublicKey('11111111111111111111111111111111');
const ATA_PROGRAM = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
const JUPITER_V6 = new PublicKey('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4');

/** DOCS openapi-spec/trigger/v1/trigger.yaml, the 200 example of POST /createOrder: 0.05 SOL for 100 USDC. */
const SPEC_CREATE =
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAkOCWPK8t5w2W1nIsonBw2T/TCNCKkrgBQia9/YVlLEcjM9zTXA2aZIqK0k40U/eCZ0Zu1176lxIuHLsY6UyQjTdash6wigo20Auc3RVYRWME9FjnpbdgdRKYjLJLe0lVi47IZO5XCZ/U0AirZsOIWLoumtNiLomxcYL6d2R2rSxzkNgnQl2IV0spQPT+7K7zraa8oytEZyZ4HSFpxmV2v3WgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEImJzcxhjwZ2dKxnfimarbEo/iDZzNgo5QjJ8b+bMOuSf2yH7EMQBZfZLsgOHg/C5SyLv/x1D4MHZgRX7jOy4YyXJY9OJInxuz0QKRSODYMLWhOZ2v8QhASOe9jb6fhZAwZGb+UhFzL/7K26csOb57yM5bvF9xJrLEObOkAAAADG+nrzvtutOj1l82qryXQxsbvkwtL24OR8pgIDRS9dYQrDSpbBZnFaYMEjPsolig3zCx7IWOB0XHNqEmJmY0siBpuIV/6rgYT7aH9jRhjANdrEOdwa6ztVmKDwAAAAAAEG3fbh12Whk9nL4UbO63msHLSF7V9bN5E6jPWFfv8AqXeleaIpvDk6bHUITYxyjNU3ParFA70LbecfV6NupbbBCAkABQKgAwIACQAJAy48AAAAAAAACAYABAAMBQ0BAQUCAAQMAgAAAIDw+gIAAAAADQEEAREIBgABAAoFDQEBCw8AAAIDBAYLDAoNDQUIBwsihW5Kr3Cf9Z9OyUY1qj0LZYDw+gIAAAAAAOH1BQAAAAAAAA0DBAAAAQk=';

describe('initialize_order against the spec\'s real createOrder transaction', () => {
  const ix = instructionsOf(SPEC_CREATE, PROGRAM.toBase58())[0]!;
  const k = ix.keys.map((m) => m.pubkey);
  // The data, read by hand: discriminator 856e4aaf709ff59f, unique_id 4ec94635aa3d0b65, making 80f0fa0200000000
  // (50_000_000 lamports), taking 00e1f50500000000 (100_000_000 USDC units), expired_at None, fee_bps None.
  const params = { uniqueId: 7_280_981_023_822_104_910n, makingAmount: 50_000_000n, takingAmount: 100_000_000n, expiredAt: null, feeBps: null, slippageBps: null };

  it('has the bytes read by hand', () => {
    expect(Buffer.from(ix.data).toString('hex')).toBe(bytes(disc('global', 'initialize_order'), u64(params.uniqueId), u64(50_000_000n), u64(100_000_000n), none, none).toString('hex'));
  });

  it('decodes to those terms and names its accounts in the IDL order', () => {
    const d = decodeTriggerInstruction(rawInstruction(ix));
    expect(d?.name).toBe('initializeOrder');
    if (d?.name !== 'initializeOrder') return;
    expect(d.params).toEqual(params);
    expect(d.accounts).toEqual({
      payer: 'devjnEpxbJUhJ39FSsFz7YPerr5bdxN8VWUXvfbFUK4',
      maker: 'devjnEpxbJUhJ39FSsFz7YPerr5bdxN8VWUXvfbFUK4',
      order: 'CX2iPk4nxarGPkk7ziViJTfL1z2e1LnGWRDimVQ4tzYf',
      reserve: 'GvHzyNFiTCe6idxbFZk65LSUpnEKDeLGeUd8WCBC7aeL',
      makerInputAccount: 'ujg6HtgKKD5funhnDHHjkBi2DdJ4fCERguNNuC8Nkhf',
      feeAccount: FEE.toBase58(),
      referral: PROGRAM.toBase58(),
      inputMint: 'So11111111111111111111111111111111111111112',
      outputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      inputTokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      outputTokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      systemProgram: SYSTEM.toBase58(),
      associatedTokenProgram: ATA_PROGRAM.toBase58(),
      eventAuthority: EVENT_AUTHORITY.toBase58(),
      program: PROGRAM.toBase58(),
    });
  });

  it('is rebuilt by the encoder with the same accounts, and the same data plus a None for the newer slippage_bps', () => {
    const ours = initializeOrderInstruction(
      { payer: k[0]!, maker: k[1]!, order: k[2]!, reserve: k[3]!, makerInputAccount: k[4]!, referral: null, inputMint: k[7]!, outputMint: k[8]!, inputTokenProgram: k[9]!, outputTokenProgram: k[10]! },
      params,
    );
    expect(ours.keys.map((m) => m.pubkey.toBase58())).toEqual(k.map((p) => p.toBase58()));
    // The compiled message merges payer and maker (one key); every other account keeps its own flags.
    expect(metas(ours).slice(2)).toEqual(metas(ix).slice(2));
    expect(Buffer.from(ours.data).toString('hex')).toBe(`${Buffer.from(ix.data).toString('hex')}00`);
  });

  it('derives the order account of the spec from ["order", maker, unique_id as u64 LE]', () => {
    expect(orderAddress(k[1]!, params.uniqueId).address.toBase58()).toBe('CX2iPk4nxarGPkk7ziViJTfL1z2e1LnGWRDimVQ4tzYf');
  });
});

describe('initialize_order assembled by hand, every field distinct', () => {
  const params = { uniqueId: 1_700_000_001n, makingAmount: 2_500_000_000n, takingAmount: 375_000_000n, expiredAt: 1_800_000_000n, feeBps: 25, slippageBps: 300 };
  // InitializeOrderParams { unique_id u64, making_amount u64, taking_amount u64, expired_at Option<i64>, fee_bps Option<u16> }
  // and, in the current IDL, slippage_bps Option<u16> after them.
  const data = bytes(disc('global', 'initialize_order'), u64(1_700_000_001n), u64(2_500_000_000n), u64(375_000_000n), some(i64(1_800_000_000n)), some(u16(25)), some(u16(300)));
  const names = ['payer', 'maker', 'order', 'reserve', 'makerInputAccount', 'feeAccount', 'referral', 'inputMint', 'outputMint', 'inputTokenProgram', 'outputTokenProgram', 'systemProgram', 'associatedTokenProgram', 'eventAuthority', 'program'];

  it('is what the encoder writes, accounts in the published order', () => {
    const ix = initializeOrderInstruction({ payer: key(1), maker: key(2), order: key(3), reserve: key(4), makerInputAccount: key(5), referral: key(6), inputMint: key(7), outputMint: key(8), inputTokenProgram: key(9), outputTokenProgram: key(10) }, params);
    expect(Buffer.from(ix.data).toString('hex')).toBe(data.toString('hex'));
    expect(initializeOrderData(params).toString('hex')).toBe(data.toString('hex'));
    expect(ix.keys.map((m) => m.pubkey.toBase58())).toEqual([key(1), key(2), key(3), key(4), key(5), FEE, key(6), key(7), key(8), key(9), key(10), SYSTEM, ATA_PROGRAM, EVENT_AUTHORITY, PROGRAM].map((p) => p.toBase58()));
    expect(ix.keys.filter((m) => m.isSigner).map((m) => m.pubkey.toBase58())).toEqual([key(1).toBase58(), key(2).toBase58()]);
  });

  it('is what the decoder reads, each account by its name', () => {
    const accounts = names.map((_, i) => key(20 + i));
    const d = decodeTriggerInstruction(raw(PROGRAM, accounts, data));
    expect(d?.name).toBe('initializeOrder');
    if (d?.name !== 'initializeOrder') return;
    expect(d.params).toEqual(params);
    expect(d.accounts).toEqual(Object.fromEntries(names.map((n, i) => [n, key(20 + i).toBase58()])));
  });

  it('tells expired_at and fee_bps None from Some', () => {
    const bare = { ...params, expiredAt: null, feeBps: null, slippageBps: 7 };
    const hand = bytes(disc('global', 'initialize_order'), u64(1_700_000_001n), u64(2_500_000_000n), u64(375_000_000n), none, none, some(u16(7)));
    expect(initializeOrderData(bare).toString('hex')).toBe(hand.toString('hex'));
    const d = decodeTriggerInstruction(raw(PROGRAM, names.map((_, i) => key(20 + i)), hand));
    expect(d?.name === 'initializeOrder' && d.params).toEqual(bare);
  });
});

describe('cancel_order and fill_order assembled by hand', () => {
  const cancelNames = ['signer', 'maker', 'order', 'reserve', 'makerInputAccount', 'inputMint', 'inputTokenProgram', 'eventAuthority', 'program'];
  const fillNames = ['taker', 'maker', 'order', 'takerInputAccount', 'takerOutputAccount', 'makerOutputAccount', 'feeAccount', 'reserve', 'inputMint', 'inputTokenProgram', 'outputMint', 'outputTokenProgram', 'jupiterProgram', 'systemProgram', 'eventAuthority', 'program'];

  it('cancel_order: the bare discriminator, accounts signer, maker, order, reserve, maker input, mint, token program, event authority, program', () => {
    const ix = cancelOrderInstruction({ signer: key(1), maker: key(2), order: key(3), reserve: key(4), makerInputAccount: key(5), inputMint: key(6), inputTokenProgram: key(7) });
    expect(Buffer.from(ix.data).toString('hex')).toBe(disc('global', 'cancel_order').toString('hex'));
    expect(ix.keys.map((m) => m.pubkey.toBase58())).toEqual([key(1), key(2), key(3), key(4), key(5), key(6), key(7), EVENT_AUTHORITY, PROGRAM].map((p) => p.toBase58()));
    expect(ix.keys.filter((m) => m.isSigner).map((m) => m.pubkey.toBase58())).toEqual([key(1).toBase58()]);
    const d = decodeTriggerInstruction(raw(PROGRAM, cancelNames.map((_, i) => key(30 + i)), disc('global', 'cancel_order')));
    expect(d?.name === 'cancelOrder' && d.accounts).toEqual(Object.fromEntries(cancelNames.map((n, i) => [n, key(30 + i).toBase58()])));
  });

  it('fill_order: FillOrderParams { input_amount u64, swap_data Vec<u8> (empty: u32 length 0) }, accounts in the published order', () => {
    const data = bytes(disc('global', 'fill_order'), u64(4_321_000n), u32(0));
    const ix = fillOrderInstruction(
      { taker: key(1), maker: key(2), order: key(3), takerInputAccount: key(4), takerOutputAccount: key(5), makerOutputAccount: key(6), reserve: key(7), inputMint: key(8), inputTokenProgram: key(9), outputMint: key(10), outputTokenProgram: key(11) },
      4_321_000n,
    );
    expect(Buffer.from(ix.data).toString('hex')).toBe(data.toString('hex'));
    expect(ix.keys.map((m) => m.pubkey.toBase58())).toEqual([key(1), key(2), key(3), key(4), key(5), key(6), FEE, key(7), key(8), key(9), key(10), key(11), JUPITER_V6, SYSTEM, EVENT_AUTHORITY, PROGRAM].map((p) => p.toBase58()));
    const d = decodeTriggerInstruction(raw(PROGRAM, fillNames.map((_, i) => key(40 + i)), data));
    expect(d?.name).toBe('fillOrder');
    if (d?.name !== 'fillOrder') return;
    expect(d.inputAmount).toBe(4_321_000n);
    expect(d.accounts).toEqual(Object.fromEntries(fillNames.map((n, i) => [n, key(40 + i).toBase58()])));
  });
});

describe('the Order account assembled by hand (372 bytes on mainnet, the fields first, zeros after)', () => {
  const order: OrderAccount = {
    maker: key(1),
    inputMint: key(2),
    outputMint: key(3),
    inputTokenProgram: key(4),
    outputTokenProgram: key(5),
    inputMintReserve: key(6),
    uniqueId: 11_111n,
    oriMakingAmount: 2_000_000_000n,
    oriTakingAmount: 300_000_000n,
    makingAmount: 1_500_000_000n,
    takingAmount: 225_000_000n,
    borrowMakingAmount: 77n,
    expiredAt: 1_900_000_000n,
    feeBps: 10,
    feeAccount: key(7),
    createdAt: 1_700_000_000n,
    updatedAt: 1_700_000_555n,
    bump: 254,
  };
  const fields = (expiry: Buffer) =>
    bytes(
      disc('account', 'Order'),
      ...[1, 2, 3, 4, 5, 6].map((n) => key(n).toBuffer()),
      u64(11_111n), u64(2_000_000_000n), u64(300_000_000n), u64(1_500_000_000n), u64(225_000_000n), u64(77n),
      expiry,
      u16(10),
      key(7).toBuffer(),
      i64(1_700_000_000n), i64(1_700_000_555n),
      u8(254),
    );
  const padded = (b: Buffer) => Buffer.concat([b, Buffer.alloc(372 - b.length)]);

  it('is what the encoder writes and the decoder reads', () => {
    const hand = padded(fields(some(i64(1_900_000_000n))));
    expect(hand.length).toBe(372);
    expect(encodeOrderAccount(order).toString('hex')).toBe(hand.toString('hex'));
    expect(decodeOrderAccount(hand)).toEqual(order);
  });

  it('with no expiry the fields after it move up by eight bytes', () => {
    const hand = padded(fields(none));
    expect(encodeOrderAccount({ ...order, expiredAt: null }).toString('hex')).toBe(hand.toString('hex'));
    expect(decodeOrderAccount(hand)).toEqual({ ...order, expiredAt: null });
  });
});
