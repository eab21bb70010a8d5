import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, PublicKey, TransactionInstruction, type VersionedTransaction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../src/lib/programIds.js';
import { EscrowBook } from '../../src/sim/products/escrow.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { guardTransaction, type GuardPolicy, type ProductCheck } from '../../src/solana/guard.js';
import { allowedProgramsFor } from '../../src/solana/programs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, ledger, startTestSim, SOL, USDC } from '../helpers/sim.js';

const TRIGGER = new PublicKey(PROGRAM_IDS.jupiterTrigger);

// The venue's escrow kit, on which the product desks are built: the product programs run (as no-op programs) at
// their real ids, an order's funds go into a token account whose authority is the order's own account of that
// program, and the venue's keeper moves them out later with transactions of its own, on the ledger.
describe('product escrows on the simulator', () => {
  let sim: RunningSimulator;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim();
    rpc = new SolanaRpc(`${sim.url}/rpc`);
  });
  afterAll(async () => {
    await sim.close();
  });

  /** An order account of the trigger program for a user, written as the program would (discriminator + user). */
  function openOrder(user: PublicKey, mint: string): { order: PublicKey; escrow: PublicKey } {
    const { venue, escrows } = sim.ctx.state;
    const order = EscrowBook.pda(TRIGGER, [Buffer.from('order'), user.toBuffer(), Keypair.generate().publicKey.toBuffer()]);
    escrows.writeState(TRIGGER, order, Buffer.concat([Buffer.from([134, 173, 223, 185, 77, 86, 28, 51]), user.toBuffer()]));
    return { order, escrow: escrows.openEscrow('trigger', order, venue.token(mint)!, user) };
  }

  /** The user's deposit transaction: the deposit and the product's own instruction (which the program accepts). */
  function depositTx(user: Keypair, mint: string, escrow: PublicKey, order: PublicKey, amount: bigint): VersionedTransaction {
    const { venue, escrows } = sim.ctx.state;
    const ix = new TransactionInstruction({ programId: TRIGGER, keys: [{ pubkey: user.publicKey, isSigner: true, isWritable: true }, { pubkey: order, isSigner: false, isWritable: true }], data: Buffer.from([1, 2, 3, 4]) });
    return venue.chain.buildTransaction(user.publicKey, [...escrows.depositInstructions(user.publicKey, venue.token(mint)!, escrow, amount), ix]).tx;
  }

  /**
   * A deposit of `amount` into `escrow`, as a product check would name it after decoding the product's instruction
   * (this test's instruction is a stand-in: what is under test is the venue's escrow, not a product's layout).
   */
  function escrowPolicy(user: PublicKey, mint: string, amount: bigint, escrow: PublicKey): GuardPolicy {
    const product: ProductCheck = { kind: 'test', program: TRIGGER.toBase58(), reads: [], check: () => ({ violations: [], terms: { escrows: [escrow.toBase58()], creates: [], payers: [], payouts: [] } }) };
    return { wallet: user, area: 'trigger', allowedPrograms: allowedProgramsFor('trigger'), coSigners: new Set(sim.ctx.state.venue.coSigners().map((k) => k.toBase58())), maxPriorityFeeLamports: 1_000_000n, spend: { kind: 'escrow', mint, amount }, mayUnwrapSol: true, allowToken2022Mints: new Set(), product };
  }

  it('holds a USDC deposit that the guard accepts as an escrow of the program, and lets the keeper pay it out', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 20_000_000n]]);
    const { order, escrow } = openOrder(user.publicKey, USDC);
    const tx = depositTx(user, USDC, escrow, order, 5_000_000n);
    const report = await guardTransaction(tx, escrowPolicy(user.publicKey, USDC, 5_000_000n, escrow), rpc);
    expect(report.violations).toEqual([]);
    // Not a unit more or less: exactly the intent's amount.
    expect((await guardTransaction(depositTx(user, USDC, escrow, order, 4_999_999n), escrowPolicy(user.publicKey, USDC, 5_000_000n, escrow), rpc)).violations.map((v) => v.rule)).toEqual(['escrow-amount']);
    tx.sign([user]);
    await rpc.send(tx.serialize());
    expect(sim.ctx.state.escrows.balance(escrow)).toBe(5_000_000n);
    expect(sim.ctx.state.escrows.list()).toContainEqual(expect.objectContaining({ address: escrow.toBase58(), product: 'trigger', authority: order.toBase58(), wallet: user.publicKey.toBase58(), mint: USDC, amount: 5_000_000n }));

    const other = Keypair.generate().publicKey;
    const { venue, escrows } = sim.ctx.state;
    const signature = escrows.submitKeeper(escrows.payoutInstructions(escrow, venue.token(USDC)!, other, 2_000_000n), { kind: 'trigger-cancel', wallet: user.publicKey.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: USDC, outputAmount: 2_000_000n });
    expect(escrows.balance(escrow)).toBe(3_000_000n);
    expect((await balances(sim, other.toBase58())).tokens[USDC]).toBe(2_000_000n);
    expect((await ledger(sim)).find((t) => t.signature === signature)).toMatchObject({ kind: 'trigger-cancel', wallet: user.publicKey.toBase58(), outputAmount: '2000000' });
  });

  it('holds SOL as wrapped SOL and pays it out as SOL', async () => {
    const user = await fundedWallet(sim, 1_000_000_000n);
    const { order, escrow } = openOrder(user.publicKey, SOL);
    const tx = depositTx(user, SOL, escrow, order, 300_000_000n);
    expect((await guardTransaction(tx, escrowPolicy(user.publicKey, SOL, 300_000_000n, escrow), rpc)).violations).toEqual([]);
    tx.sign([user]);
    await rpc.send(tx.serialize());
    const { venue, escrows } = sim.ctx.state;
    expect(escrows.balance(escrow)).toBe(300_000_000n);
    const before = venue.chain.lamports(user.publicKey);
    escrows.submitKeeper(escrows.payoutInstructions(escrow, venue.token(SOL)!, user.publicKey, 300_000_000n), { kind: 'trigger-cancel', wallet: user.publicKey.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: SOL, outputAmount: 300_000_000n });
    expect(escrows.balance(escrow)).toBe(0n);
    expect(venue.chain.lamports(user.publicKey) - before).toBe(300_000_000n);
  });

  it('refuses the same deposit into an escrow a stranger controls, or another order\'s escrow of the same program', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 20_000_000n]]);
    const { escrow: mine } = openOrder(user.publicKey, USDC);
    const stranger = Keypair.generate().publicKey;
    const escrow = sim.ctx.state.escrows.openEscrow('trigger', stranger, sim.ctx.state.venue.token(USDC)!, user.publicKey);
    const tx = depositTx(user, USDC, escrow, stranger, 5_000_000n);
    const rules = (await guardTransaction(tx, escrowPolicy(user.publicKey, USDC, 5_000_000n, mine), rpc)).violations.map((v) => v.rule);
    expect(rules).toEqual(expect.arrayContaining(['destination', 'escrow-amount']));
    // An order of the program (someone else's), with its own escrow: an account of the right program is not the escrow named.
    const { order: theirs, escrow: theirEscrow } = openOrder(Keypair.generate().publicKey, USDC);
    const intoTheirs = (await guardTransaction(depositTx(user, USDC, theirEscrow, theirs, 5_000_000n), escrowPolicy(user.publicKey, USDC, 5_000_000n, mine), rpc)).violations.map((v) => v.rule);
    expect(intoTheirs).toEqual(expect.arrayContaining(['destination', 'escrow-amount']));
  });

  it('declares the keeper as a co-signer and lists the open escrows', async () => {
    const venue = await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET');
    expect(venue.coSigners).toContain(sim.ctx.state.venue.keeper.publicKey.toBase58());
    const listed = await control<{ escrows: Array<{ product: string; amount: string }> }>(sim, '/escrows', undefined, 'GET');
    expect(listed.escrows.length).toBeGreaterThan(0);
  });
});
