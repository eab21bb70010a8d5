import { describe, expect, it } from 'vitest';
import { AddressLookupTableProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { instructionsOf, mainnetTwin } from '../helpers/mainnetShape.js';
import { attackMoves } from '../helpers/mainnetShapeAttacks.js';
import { programCreations, whileAbsent, withProgramCreations, type CreationTerms } from '../helpers/mainnetShapeCreates.js';
import { rulesOf, useMainnetShapeWorld, type ProductCase, type ProductIntentKind } from '../helpers/mainnetShapeWorld.js';
import { control, fundedWallet } from '../helpers/sim.js';
import type { GuardReport } from '../../src/solana/guard.js';

/** The kinds whose instruction creates the program's accounts at the wallet's expense. */
const CREATING: ProductIntentKind[] = ['trigger.create', 'recurring.create', 'prediction.buy', 'send'];

// A real program creates its order (DCA, invite) account and its escrow inside its instruction, paid by the wallet;
// the simulator's venue pays for them itself (mainnetShapeCreates.ts). In mainnet shape with those creations, the
// honest transaction passes: each is an account the instruction names, of its type's size, for exactly its rent, and
// the wallet's SOL falls by the fee and those rents. A creation of another size or rent is refused.
describe('the guard on mainnet-shaped creates that open the program\'s accounts at the wallet\'s expense', { timeout: 240_000 }, () => {
  const w = useMainnetShapeWorld('guard-mainnet-shape-creates');

  /** The guard's report on the case's build in mainnet shape, the program creating its accounts on `terms`. */
  const withCreations = async (c: ProductCase, terms: CreationTerms = {}): Promise<{ report: GuardReport; rent: bigint; fee: bigint }> => {
    const creations = programCreations(c.built.tx, w.venue);
    // A prediction buy opens its first position too; a DCA its account of the output mint.
    const kinds = { 'prediction.buy': ['escrow', 'state', 'state'], 'recurring.create': ['escrow', 'escrow', 'state'] }[c.kind as string] ?? ['escrow', 'state'];
    expect(creations.map((x) => x.kind).sort()).toEqual(kinds);
    const original = withProgramCreations(c.built.tx, creations, c.s.wallet.publicKey, w.venue, terms);
    // Every creation runs inside the product instruction: the twin is the honest build's twin, byte for byte (so the
    // front, which knows a twin by its message, answers it from this original: the last registered).
    const honest = mainnetTwin(c.built.tx, { program: c.program, wallet: c.s.wallet.publicKey });
    const twin = w.twinOf(c, original);
    expect(twin.key).toBe(honest.key);
    const report = await whileAbsent(w.venue, creations, () => w.guardMainnet(c, twin));
    const rent = creations.reduce((sum, x) => sum + w.venue.chain.rentExempt(x.kind === 'escrow' ? 165 : x.space), 0n);
    return { report, rent, fee: report.feeLamports ?? 0n };
  };

  it.each(CREATING)('%s: passes, the wallet paying exactly the rent of what the program creates', async (kind) => {
    const c = await w.prepare(kind);
    const held = () => programCreations(c.built.tx, w.venue).map((x) => w.venue.chain.account(x.address));
    const before = held();
    const { report, rent, fee } = await withCreations(c);
    expect(report.violations).toEqual([]);
    // The fee of the twin (its own signatures and compute budget) and the rents: nothing else leaves in SOL.
    expect(report.changes.lamports).toBe(-(fee + rent));
    // The escrow the venue opened is back as it was.
    expect(held()).toEqual(before);
  });

  it.each(CREATING)('%s: refuses a state account created larger, or funded beyond its rent', async (kind) => {
    const c = await w.prepare(kind);
    // Refused as a creation the instruction does not allow, and its lamports as SOL the intent does not spend.
    expect(rulesOf((await withCreations(c, { extraSpace: 8 })).report)).toEqual(['created-account', 'sol-outflow']);
    expect(rulesOf((await withCreations(c, { extraLamports: 1_000_000n })).report)).toEqual(['created-account', 'sol-outflow']);
  });

  it('passes a twin whose accounts load through an address lookup table, and refuses one that moves the deposit', async () => {
    const c = await w.prepare('trigger.create');
    const owner = await fundedWallet(w.world.sim, 100_000_000n);
    const recentSlot = (await w.world.rpc.connection.getSlot('confirmed')) - 1;
    const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: owner.publicKey, payer: owner.publicKey, recentSlot });
    // The product instruction's accounts that are neither signers nor programs it invokes can load from a table.
    const product = instructionsOf(c.built.tx).find((ix) => ix.programId.toBase58() === c.program)!;
    const addresses = product.keys.filter((x) => !x.isSigner).map((x) => x.pubkey);
    const extend = AddressLookupTableProgram.extendLookupTable({ authority: owner.publicKey, payer: owner.publicKey, lookupTable: table, addresses });
    const { blockhash } = await w.world.rpc.connection.getLatestBlockhash();
    const tx = new VersionedTransaction(new TransactionMessage({ payerKey: owner.publicKey, recentBlockhash: blockhash, instructions: [create, extend] }).compileToV0Message());
    tx.sign([owner]);
    await w.world.rpc.connection.sendRawTransaction(tx.serialize());
    // Addresses added to a table are usable from the next slot on.
    await control(w.world.sim, '/clock', { advanceMs: 800 });
    const alt = (await w.world.rpc.connection.getAddressLookupTable(table, { commitment: 'confirmed' })).value!;

    const twin = w.twinOf(c, c.built.tx, [alt]);
    expect(twin.twin.message.addressTableLookups).toHaveLength(1);
    expect(twin.twin.message.staticAccountKeys.length).toBeLessThan(w.twinOf(c, c.built.tx).twin.message.staticAccountKeys.length);
    expect((await w.guardMainnet(c, twin)).violations).toEqual([]);
    const stolen = attackMoves(c.built.tx, { kind: 'deposit-stranger' }, { venue: w.venue, wallet: c.s.wallet.publicKey, stranger: w.stranger, program: c.program });
    const stolenTwin = w.twinOf(c, stolen.tx, [alt]);
    expect(stolenTwin.twin.message.addressTableLookups).toHaveLength(1);
    expect(rulesOf(await w.guardMainnet(c, stolenTwin))).toEqual(['destination', 'escrow-amount']);
  });
});
