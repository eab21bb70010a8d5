import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, PublicKey, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { DCA } from '@jup-ag/dca-sdk';
import { PROGRAM_IDS } from '../../src/lib/programIds.js';
import { closeDcaInstruction, DCA_ACCOUNT_SIZE, dcaAddress, openDcaV2Instruction, RECURRING_EVENT_AUTHORITY } from '../../src/jupiter/programs/recurring.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { fundedWallet, signBase64, SOL, startTestSim, USDC } from '../helpers/sim.js';
import { eventually, openRecurringOrder, recurringClient } from './recurringKit.js';

// Transactions the real service handed out, from Jupiter's docs (recurring/create-order.mdx, cancel-order.mdx):
// a 0.2 SOL -> USDC order of 2 cycles every 300 s, and the cancel of another order of the same wallet.
const REAL_CREATE =
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAgNRL7cu4ZNuxh1wI9W7GVURyr3A06dH348HDpIQzcAJ4o8bJlCl2Wc6MzpcvkV0INcJ7u23GV89soNJ/8i5QPLuk+NOvCjbAbTzOyNoSWuhO5fYq+hNGrGQ2JdDy82Gw0bv28tkzlck1LrvR2ACB/vAL7AIssgVYeCOBbHfYskycnT/icRrhr4nbjk0DzDqAkM4ntju8NXHrILEpE0TUKNKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAwZGb+UhFzL/7K26csOb57yM5bvF9xJrLEObOkAAAAAGm4hX/quBhPtof2NGGMA12sQ53BrrO1WYoPAAAAAAAQbd9uHXZaGT2cvhRs7reawctIXtX1s3kTqM9YV+/wCpjJclj04kifG7PRApFI4NgwtaE5na/xCEBI572Nvp+FmwdagGY3nKb+NwN/8MKNVUpuTWNtnoUYz+brrpP1I2/rUn1F1kDj7BX2FdWw4jpUqWuD8Lggv3BjXyQ0rGQMwExvp6877brTo9ZfNqq8l0MbG75MLS9uDkfKYCA0UvXWG7njQ5EK9zaEM059+IQanso4m+YzpvFchLCtBxOCdR5QcGAAUCGSwAAAYACQNADQMAAAAAAAkGAAMABwUIAQEFAgADDAIAAAAAwusLAAAAAAgBAwERCw0EAAAHDAMBAgUICQoLK453K22iNAuxgF7IZwAAAAAAwusLAAAAAADh9QUAAAAALAEAAAAAAAAAAAAIBAMAAAABCQ==';
const REAL_CANCEL =
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAgORL7cu4ZNuxh1wI9W7GVURyr3A06dH348HDpIQzcAJ4oZOZHXAukWalAX/odOiV55UZa1ePBg8d2tRKQyqCjV6C/H8IQcrfZR4QeOJFykenP3QJznc6vNpqe2D57HTD7Gd1R4MYi595YUO8ViNwpWb17+Q9DxkVcz5fWpSqjtDyiji2RfCl7yoUfzkV42QPexQNFjBK5/+pJhV8QuWShN6r9vLZM5XJNS670dgAgf7wC+wCLLIFWHgjgWx32LJMnJAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADBkZv5SEXMv/srbpyw5vnvIzlu8X3EmssQ5s6QAAAAAabiFf+q4GE+2h/Y0YYwDXaxDncGus7VZig8AAAAAABBt324ddloZPZy+FGzut5rBy0he1fWzeROoz1hX7/AKmMlyWPTiSJ8bs9ECkUjg2DC1oTmdr/EIQEjnvY2+n4WbB1qAZjecpv43A3/wwo1VSm5NY22ehRjP5uuuk/Ujb+tSfUXWQOPsFfYV1bDiOlSpa4PwuCC/cGNfJDSsZAzATG+nrzvtutOj1l82qryXQxsbvkwtL24OR8pgIDRS9dYVCj/auTzJLgPke1v9c3puAy81rBYgsabmuLUTEQsZyVAwcABQL9WQEABwAJA0ANAwAAAAAADA0AAg0IAQQDBQYJCgsMCBYHIWKotyLz';

const DCA_PROGRAM = PROGRAM_IDS.jupiterRecurring;
/** The SDK's own Anchor coder, built from the same IDL (no network: the connection is never used). */
const sdk = new DCA(new Connection('http://127.0.0.1:9'));

function dcaInstruction(base64: string): TransactionInstruction {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  const ix = TransactionMessage.decompile(tx.message).instructions.find((i) => i.programId.toBase58() === DCA_PROGRAM);
  if (!ix) throw new Error('no DCA instruction');
  return ix;
}

/** The SDK coder's instruction decoder (Anchor's BorshInstructionCoder; its interface type omits decode). */
function decodeInstruction(data: Buffer): { name: string; data: Record<string, { toString(): string } | null> } | null {
  const coder = sdk.program.coder.instruction as unknown as { decode(data: Buffer): { name: string; data: Record<string, { toString(): string } | null> } | null };
  return coder.decode(data);
}

const keys = (ix: TransactionInstruction) => ix.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable]);

describe('the DCA program as the simulator writes it', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startTestSim();
  });
  afterAll(async () => {
    await sim.close();
  });

  it('derives the order account, its token accounts and openDcaV2 exactly as in a transaction of the real service', () => {
    const real = dcaInstruction(REAL_CREATE);
    const user = real.keys[1]!.pubkey;
    // The order index is the instruction's first argument (the unix second the service opened it).
    const idx = Buffer.from(real.data).readBigUInt64LE(8);
    const { address } = dcaAddress(user, new PublicKey(SOL), new PublicKey(USDC), idx);
    expect(address.toBase58()).toBe(real.keys[0]!.pubkey.toBase58());
    const ours = openDcaV2Instruction(
      {
        dca: address,
        user,
        inputMint: new PublicKey(SOL),
        outputMint: new PublicKey(USDC),
        userAta: getAssociatedTokenAddressSync(new PublicKey(SOL), user),
        inAta: getAssociatedTokenAddressSync(new PublicKey(SOL), address, true),
        outAta: getAssociatedTokenAddressSync(new PublicKey(USDC), address, true),
        tokenProgram: new PublicKey(PROGRAM_IDS.splToken),
      },
      { applicationIdx: idx, inAmount: 200_000_000n, inAmountPerCycle: 100_000_000n, cycleFrequency: 300n, minPrice: null, maxPrice: null, startAt: null },
    );
    expect(Buffer.from(ours.data).toString('hex')).toBe(Buffer.from(real.data).toString('hex'));
    // The merged signer flags of the compiled message (user and payer are one key) aside, the accounts are the same.
    expect(ours.keys.map((k) => k.pubkey.toBase58())).toEqual(real.keys.map((k) => k.pubkey.toBase58()));
    expect(RECURRING_EVENT_AUTHORITY.toBase58()).toBe(real.keys[11]!.pubkey.toBase58());
  });

  it('writes closeDca with the real discriminator and account order', () => {
    const real = dcaInstruction(REAL_CANCEL);
    const k = real.keys.map((x) => x.pubkey);
    const ours = closeDcaInstruction({ user: k[0]!, dca: k[1]!, inputMint: k[2]!, outputMint: k[3]!, inAta: k[4]!, outAta: k[5]!, userInAta: k[6]!, userOutAta: k[7]!, tokenProgram: k[9]! });
    expect(Buffer.from(ours.data).equals(Buffer.from(real.data))).toBe(true);
    expect(keys(ours)).toEqual(keys(real));
  });

  it("hands out an openDcaV2 and writes an order account that the SDK's Anchor coder reads back", async () => {
    const jup = recurringClient(sim);
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 150_000_000n]]);
    const created = await jup.recurring.createOrder({ user: user.publicKey.toBase58(), inputMint: USDC, outputMint: SOL, params: { inAmount: 150_000_000n, numberOfOrders: 3, interval: 600, minPrice: 0.004 }, inputUsdPrice: 1, inputDecimals: 6 });
    const decoded = decodeInstruction(Buffer.from(dcaInstruction(created.transaction).data));
    expect(decoded?.name).toBe('openDcaV2');
    expect(Object.fromEntries(Object.entries(decoded!.data).map(([k, v]) => [k, v?.toString() ?? null]))).toMatchObject({ inAmount: '150000000', inAmountPerCycle: '50000000', cycleFrequency: '600', minPrice: '200000000', maxPrice: null, startAt: null });

    const dca = dcaInstruction(created.transaction).keys[0]!.pubkey;
    // As the program's openDcaV2 creates it: nothing at the order's address until the user's transaction lands.
    expect(sim.ctx.state.venue.chain.account(dca)).toBeNull();
    const executed = await jup.recurring.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, user) });
    expect(executed.order).toBe(dca.toBase58());
    const read = (): Record<string, { toString(): string }> => sdk.program.coder.accounts.decode('dca', Buffer.from(sim.ctx.state.venue.chain.account(dca)!.data));
    const fields = (names: string[]) => Object.fromEntries(names.map((k) => [k, read()[k]!.toString()]));
    expect(sim.ctx.state.venue.chain.account(dca)!.data.length).toBe(Number(DCA_ACCOUNT_SIZE));
    expect(fields(['user', 'inputMint', 'outputMint', 'inDeposited', 'inAmountPerCycle', 'cycleFrequency', 'minOutAmount', 'maxOutAmount', 'inAccount'])).toEqual({
      user: user.publicKey.toBase58(),
      inputMint: USDC,
      outputMint: SOL,
      inDeposited: '150000000',
      inAmountPerCycle: '50000000',
      cycleFrequency: '600',
      minOutAmount: '200000000',
      maxOutAmount: '0',
      inAccount: getAssociatedTokenAddressSync(new PublicKey(USDC), dca, true).toBase58(),
    });
    // Once open, the account follows the fills as the program keeps it.
    await eventually('the first fill in the account', () => Promise.resolve(read().inUsed!.toString() === '50000000' ? true : undefined));
    expect(BigInt(read().outReceived!.toString())).toBeGreaterThan(0n);
  });

  it('gives two orders of one pair opened in the same second different accounts', async () => {
    const jup = recurringClient(sim);
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 300_000_000n]]);
    const terms = { inputMint: USDC, outputMint: SOL, inAmount: 150_000_000n, numberOfOrders: 2, interval: 600, inputUsdPrice: 1 };
    const first = await openRecurringOrder(sim, jup, user, terms);
    const second = await openRecurringOrder(sim, jup, user, terms);
    expect(second.order).not.toBe(first.order);
  });
});
