import { describe, expect, it } from 'vitest';
import { Connection, PublicKey } from '@solana/web3.js';
import { BN } from '@coral-xyz/anchor';
import { DCA } from '@jup-ag/dca-sdk';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import {
  closeDcaInstruction,
  DCA_ACCOUNT_SIZE,
  decodeDcaAccount,
  decodeRecurringInstruction,
  encodeDcaAccount,
  openDcaV2Data,
  openDcaV2Instruction,
  type DcaAccount,
  type OpenDcaArgs,
} from '../../src/jupiter/programs/recurring.js';
import { bytes, disc, i64, instructionsOf, key, metas, raw, some, u64, u8 } from './known-answers-hand.js';

/*
 * Known answers for the DCA program behind the Recurring API (issue 21): two transactions the real service handed out
 * (Jupiter's docs, recurring/create-order.mdx and cancel-order.mdx), and vectors written by the official SDK's own
 * Anchor coder and instruction builder (@jup-ag/dca-sdk), cross-checked against bytes assembled by hand. Every field
 * holds a different value, so two fields of one type swapped in the project's encoder and decoder alike change the
 * bytes.
 */

const PROGRAM = new PublicKey('DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M');
/** The SDK's program: its coder and builders read nothing from the chain (the connection is never contacted). */
const sdk = new DCA(new Connection('http://127.0.0.1:9')).program;

/** Docs recurring/create-order.mdx: 0.2 SOL into USDC in 2 cycles 300 s apart. */
const DOCS_CREATE =
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAgNRL7cu4ZNuxh1wI9W7GVURyr3A06dH348HDpIQzcAJ4o8bJlCl2Wc6MzpcvkV0INcJ7u23GV89soNJ/8i5QPLuk+NOvCjbAbTzOyNoSWuhO5fYq+hNGrGQ2JdDy82Gw0bv28tkzlck1LrvR2ACB/vAL7AIssgVYeCOBbHfYskycnT/icRrhr4nbjk0DzDqAkM4ntju8NXHrILEpE0TUKNKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAwZGb+UhFzL/7K26csOb57yM5bvF9xJrLEObOkAAAAAGm4hX/quBhPtof2NGGMA12sQ53BrrO1WYoPAAAAAAAQbd9uHXZaGT2cvhRs7reawctIXtX1s3kTqM9YV+/wCpjJclj04kifG7PRApFI4NgwtaE5na/xCEBI572Nvp+FmwdagGY3nKb+NwN/8MKNVUpuTWNtnoUYz+brrpP1I2/rUn1F1kDj7BX2FdWw4jpUqWuD8Lggv3BjXyQ0rGQMwExvp6877brTo9ZfNqq8l0MbG75MLS9uDkfKYCA0UvXWG7njQ5EK9zaEM059+IQanso4m+YzpvFchLCtBxOCdR5QcGAAUCGSwAAAYACQNADQMAAAAAAAkGAAMABwUIAQEFAgADDAIAAAAAwusLAAAAAAgBAwERCw0EAAAHDAMBAgUICQoLK453K22iNAuxgF7IZwAAAAAAwusLAAAAAADh9QUAAAAALAEAAAAAAAAAAAAIBAMAAAABCQ==';
/** Docs recurring/cancel-order.mdx: the same wallet closes another order. */
const DOCS_CANCEL =
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAgORL7cu4ZNuxh1wI9W7GVURyr3A06dH348HDpIQzcAJ4oZOZHXAukWalAX/odOiV55UZa1ePBg8d2tRKQyqCjV6C/H8IQcrfZR4QeOJFykenP3QJznc6vNpqe2D57HTD7Gd1R4MYi595YUO8ViNwpWb17+Q9DxkVcz5fWpSqjtDyiji2RfCl7yoUfzkV42QPexQNFjBK5/+pJhV8QuWShN6r9vLZM5XJNS670dgAgf7wC+wCLLIFWHgjgWx32LJMnJAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADBkZv5SEXMv/srbpyw5vnvIzlu8X3EmssQ5s6QAAAAAabiFf+q4GE+2h/Y0YYwDXaxDncGus7VZig8AAAAAABBt324ddloZPZy+FGzut5rBy0he1fWzeROoz1hX7/AKmMlyWPTiSJ8bs9ECkUjg2DC1oTmdr/EIQEjnvY2+n4WbB1qAZjecpv43A3/wwo1VSm5NY22ehRjP5uuuk/Ujb+tSfUXWQOPsFfYV1bDiOlSpa4PwuCC/cGNfJDSsZAzATG+nrzvtutOj1l82qryXQxsbvkwtL24OR8pgIDRS9dYVCj/auTzJLgPke1v9c3puAy81rBYgsabmuLUTEQsZyVAwcABQL9WQEABwAJA0ANAwAAAAAADA0AAg0IAQQDBQYJCgsMCBYHIWKotyLz';

const OPEN_NAMES = ['dca', 'user', 'payer', 'inputMint', 'outputMint', 'userAta', 'inAta', 'outAta', 'systemProgram', 'tokenProgram', 'associatedTokenProgram', 'eventAuthority', 'program'];
/** The accounts every instruction names at fixed addresses (the event authority as in the docs' transactions). */
const FIXED = {
  systemProgram: new PublicKey('11111111111111111111111111111111'),
  associatedTokenProgram: new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'),
  eventAuthority: new PublicKey('Cspp27eGUDMXxPEdhmEXFVRn6Lt1L7xJyALF3nmnWoBj'),
  program: PROGRAM,
};
const CLOSE_NAMES = ['user', 'dca', 'inputMint', 'outputMint', 'inAta', 'outAta', 'userInAta', 'userOutAta', 'systemProgram', 'tokenProgram', 'associatedTokenProgram', 'eventAuthority', 'program'];

describe('openDcaV2 and closeDca against the docs\' real transactions', () => {
  const open = instructionsOf(DOCS_CREATE, PROGRAM.toBase58())[0]!;
  const close = instructionsOf(DOCS_CANCEL, PROGRAM.toBase58())[0]!;
  // Read by hand: 8e772b6da2340bb1 (open_dca_v2), application_idx 805ec86700000000 (1_741_184_640), in_amount
  // 00c2eb0b00000000 (200_000_000), in_amount_per_cycle 00e1f50500000000 (100_000_000), cycle_frequency
  // 2c01000000000000 (300), then min_price, max_price and start_at all None.
  const args: OpenDcaArgs = { applicationIdx: 1_741_184_640n, inAmount: 200_000_000n, inAmountPerCycle: 100_000_000n, cycleFrequency: 300n, minPrice: null, maxPrice: null, startAt: null };

  it('openDcaV2 has the bytes read by hand, decodes to them, and is rebuilt byte for byte', () => {
    expect(Buffer.from(open.data).toString('hex')).toBe('8e772b6da2340bb1805ec8670000000000c2eb0b0000000000e1f505000000002c01000000000000000000');
    const d = decodeRecurringInstruction(rawInstruction(open));
    expect(d?.name).toBe('openDcaV2');
    if (d?.name !== 'openDcaV2') return;
    expect(d.args).toEqual(args);
    expect(d.accounts).toEqual(Object.fromEntries(OPEN_NAMES.map((n, i) => [n, open.keys[i]!.pubkey.toBase58()])));
    expect(d.accounts.dca).toBe('FGXoHmS8MXU6pgzoJFHj86ZAW7wCFKodp6wgWi5WnoW7');
    expect(d.accounts.userAta).toBe('DtHCQeMR1W7bRJqZBhfLdtjYijFhjrdnVjZJVbiwaegQ');
    const k = open.keys.map((m) => m.pubkey);
    const ours = openDcaV2Instruction({ dca: k[0]!, user: k[1]!, inputMint: k[3]!, outputMint: k[4]!, userAta: k[5]!, inAta: k[6]!, outAta: k[7]!, tokenProgram: k[9]! }, args);
    expect(Buffer.from(ours.data).toString('hex')).toBe(Buffer.from(open.data).toString('hex'));
    expect(ours.keys.map((m) => m.pubkey.toBase58())).toEqual(k.map((p) => p.toBase58()));
  });

  it('closeDca is the bare discriminator, and the encoder writes its accounts and flags exactly', () => {
    expect(Buffer.from(close.data).toString('hex')).toBe(disc('global', 'close_dca').toString('hex'));
    const k = close.keys.map((m) => m.pubkey);
    const ours = closeDcaInstruction({ user: k[0]!, dca: k[1]!, inputMint: k[2]!, outputMint: k[3]!, inAta: k[4]!, outAta: k[5]!, userInAta: k[6]!, userOutAta: k[7]!, tokenProgram: k[9]! });
    expect(metas(ours)).toEqual(metas(close));
    expect(Buffer.from(ours.data).toString('hex')).toBe(Buffer.from(close.data).toString('hex'));
    const d = decodeRecurringInstruction(rawInstruction(close));
    expect(d?.name === 'closeDca' && d.accounts).toEqual(Object.fromEntries(CLOSE_NAMES.map((n, i) => [n, k[i]!.toBase58()])));
  });
});

describe("openDcaV2 with every argument set, from the SDK's Anchor coder", () => {
  const args: OpenDcaArgs = { applicationIdx: 1_741_000_001n, inAmount: 900_000_000n, inAmountPerCycle: 150_000_000n, cycleFrequency: 3_600n, minPrice: 2_000_000n, maxPrice: 9_000_000n, startAt: 1_750_000_000n };
  const bn = (n: bigint | null) => (n === null ? null : new BN(n.toString()));
  const sdkData = (a: OpenDcaArgs): Buffer =>
    sdk.coder.instruction.encode('openDcaV2', { applicationIdx: bn(a.applicationIdx), inAmount: bn(a.inAmount), inAmountPerCycle: bn(a.inAmountPerCycle), cycleFrequency: bn(a.cycleFrequency), minPrice: bn(a.minPrice), maxPrice: bn(a.maxPrice), startAt: bn(a.startAt) });

  it('the SDK writes the bytes the IDL lays out by hand (u64 × 3, i64, Option<u64> × 2, Option<i64>)', () => {
    const hand = bytes(disc('global', 'open_dca_v2'), u64(1_741_000_001n), u64(900_000_000n), u64(150_000_000n), i64(3_600n), some(u64(2_000_000n)), some(u64(9_000_000n)), some(i64(1_750_000_000n)));
    expect(sdkData(args).toString('hex')).toBe(hand.toString('hex'));
  });

  it('is what the encoder writes and the decoder reads', () => {
    const data = sdkData(args);
    expect(openDcaV2Data(args).toString('hex')).toBe(data.toString('hex'));
    const d = decodeRecurringInstruction(raw(PROGRAM, OPEN_NAMES.map((_, i) => key(10 + i)), data));
    expect(d?.name === 'openDcaV2' && d.args).toEqual(args);
  });

  it('keeps min_price and max_price apart when only one is set', () => {
    for (const a of [{ ...args, minPrice: null }, { ...args, maxPrice: null, startAt: null }]) {
      expect(openDcaV2Data(a).toString('hex')).toBe(sdkData(a).toString('hex'));
      const d = decodeRecurringInstruction(raw(PROGRAM, OPEN_NAMES.map((_, i) => key(10 + i)), sdkData(a)));
      expect(d?.name === 'openDcaV2' && d.args).toEqual(a);
    }
  });

  it("has the accounts and flags of the SDK's own builder, and the decoder names each", async () => {
    const accounts = { ...Object.fromEntries(OPEN_NAMES.map((n, i) => [n, key(30 + i)])), ...FIXED, payer: key(31) };
    const built = await sdk.methods
      .openDcaV2(new BN('1741000001'), new BN('900000000'), new BN('150000000'), new BN('3600'), new BN('2000000'), new BN('9000000'), new BN('1750000000'))
      .accounts(accounts)
      .instruction();
    const ours = openDcaV2Instruction({ dca: key(30), user: key(31), inputMint: key(33), outputMint: key(34), userAta: key(35), inAta: key(36), outAta: key(37), tokenProgram: key(39) }, args);
    expect(metas(ours)).toEqual(metas(built));
    expect(Buffer.from(ours.data).toString('hex')).toBe(Buffer.from(built.data).toString('hex'));
    const d = decodeRecurringInstruction(raw(PROGRAM, OPEN_NAMES.map((_, i) => key(30 + i)), Buffer.from(built.data)));
    expect(d?.name === 'openDcaV2' && d.accounts).toEqual(Object.fromEntries(OPEN_NAMES.map((n, i) => [n, key(30 + i).toBase58()])));
  });

  it("closeDca has the accounts and flags of the SDK's builder, and the decoder names each", async () => {
    const accounts = { ...Object.fromEntries(CLOSE_NAMES.map((n, i) => [n, key(60 + i)])), ...FIXED };
    const built = await sdk.methods.closeDca().accounts(accounts).instruction();
    const ours = closeDcaInstruction({ user: key(60), dca: key(61), inputMint: key(62), outputMint: key(63), inAta: key(64), outAta: key(65), userInAta: key(66), userOutAta: key(67), tokenProgram: key(69) });
    expect(metas(ours)).toEqual(metas(built));
    const d = decodeRecurringInstruction(raw(PROGRAM, CLOSE_NAMES.map((_, i) => key(60 + i)), Buffer.from(built.data)));
    expect(d?.name === 'closeDca' && d.accounts).toEqual(Object.fromEntries(CLOSE_NAMES.map((n, i) => [n, key(60 + i).toBase58()])));
  });
});

describe("the dca account, from the SDK's Anchor coder", () => {
  const account: DcaAccount = {
    user: key(1),
    inputMint: key(2),
    outputMint: key(3),
    idx: 1_741_000_002n,
    nextCycleAt: 1_760_000_003n,
    inDeposited: 1_000_000_004n,
    inWithdrawn: 5_000_005n,
    outWithdrawn: 6_000_006n,
    inUsed: 300_000_007n,
    outReceived: 2_000_008n,
    inAmountPerCycle: 100_000_009n,
    cycleFrequency: 86_410n,
    nextCycleAmountLeft: 11_000_011n,
    inAccount: key(4),
    outAccount: key(5),
    minOutAmount: 12_000_012n,
    maxOutAmount: 13_000_013n,
    keeperInBalanceBeforeBorrow: 14_000_014n,
    dcaOutBalanceBeforeSwap: 15_000_015n,
    createdAt: 1_740_000_016n,
    bump: 253,
  };
  const sdkBytes = async (): Promise<Buffer> =>
    sdk.coder.accounts.encode('dca', Object.fromEntries(Object.entries(account).map(([k, v]) => [k, typeof v === 'bigint' ? new BN(v.toString()) : v])));

  it('the SDK writes the bytes the IDL lays out by hand', async () => {
    const u = (n: bigint) => u64(n);
    const hand = bytes(
      disc('account', 'Dca'),
      key(1).toBuffer(), key(2).toBuffer(), key(3).toBuffer(),
      u(1_741_000_002n), i64(1_760_000_003n), u(1_000_000_004n), u(5_000_005n), u(6_000_006n), u(300_000_007n), u(2_000_008n), u(100_000_009n), i64(86_410n), u(11_000_011n),
      key(4).toBuffer(), key(5).toBuffer(),
      u(12_000_012n), u(13_000_013n), u(14_000_014n), u(15_000_015n), i64(1_740_000_016n), u8(253),
    );
    expect((await sdkBytes()).toString('hex')).toBe(hand.toString('hex'));
    expect(BigInt(hand.length)).toBe(DCA_ACCOUNT_SIZE);
  });

  it('is what the encoder writes and the decoder reads', async () => {
    const data = await sdkBytes();
    expect(encodeDcaAccount(account).toString('hex')).toBe(data.toString('hex'));
    expect(decodeDcaAccount(data)).toEqual(account);
  });
});
