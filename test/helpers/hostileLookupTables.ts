// Address lookup tables for the hostile venue's product builds: a served transaction compiled as v0 with a table
// created on the simulator's chain just before, as a venue that builds with tables would (Metis and Ultra routes
// do): the wallet's guard must resolve the table to see the accounts the transaction really touches.
import { AddressLookupTableAccount, AddressLookupTableProgram, TransactionMessage, type Keypair, type MessageV0, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { settledSignature, type Venue } from '../../src/sim/venue.js';

/** Addresses one extend instruction adds (a transaction with more would not fit in a packet). */
const ADDRESSES_PER_EXTEND = 20;
/** Lamports the table authority keeps to pay the tables' rent and fees. */
const AUTHORITY_FLOAT = 1_000_000_000n;
/** Simulated ms after which a table's addresses are usable: they are from the slot after the one that added them. */
const TABLE_WARMUP_MS = 800;

/**
 * Compiles `instructions` as a v0 message whose accounts come, wherever they can, from a new lookup table that
 * `authority` creates and extends on the simulator's chain with every account they name but the signers and the
 * programs they invoke (the runtime loads neither from a table). The clock moves on until the table is usable.
 */
export function compileWithLookupTable(venue: Venue, authority: Keypair, o: { payerKey: PublicKey; recentBlockhash: string; instructions: TransactionInstruction[] }): { message: MessageV0; table: PublicKey } {
  const static_ = new Set([o.payerKey.toBase58(), ...o.instructions.map((ix) => ix.programId.toBase58()), ...o.instructions.flatMap((ix) => ix.keys.filter((k) => k.isSigner).map((k) => k.pubkey.toBase58()))]);
  const addresses = [...new Map(o.instructions.flatMap((ix) => ix.keys.map((k) => [k.pubkey.toBase58(), k.pubkey] as const))).entries()].filter(([a]) => !static_.has(a)).map(([, k]) => k);
  if (venue.chain.lamports(authority.publicKey) < AUTHORITY_FLOAT) venue.chain.airdropLamports(authority.publicKey, AUTHORITY_FLOAT);
  // A table's address derives from its authority and a recent slot: one table per slot and authority.
  const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: authority.publicKey, payer: authority.publicKey, recentSlot: venue.clock.slot() - 1n });
  const extend = (chunk: PublicKey[]) => AddressLookupTableProgram.extendLookupTable({ authority: authority.publicKey, payer: authority.publicKey, lookupTable: table, addresses: chunk });
  for (let i = 0; i < addresses.length || i === 0; i += ADDRESSES_PER_EXTEND) {
    const chunk = addresses.slice(i, i + ADDRESSES_PER_EXTEND);
    const { tx } = venue.chain.buildTransaction(authority.publicKey, i === 0 ? [create, ...(chunk.length > 0 ? [extend(chunk)] : [])] : [extend(chunk)]);
    tx.sign([authority]);
    settledSignature(venue.chain.submit(tx), 'the hostile venue\'s lookup table');
  }
  venue.clock.advance(TABLE_WARMUP_MS);
  const account = venue.chain.account(table);
  if (!account) throw new Error(`lookup table ${table.toBase58()} was not created`);
  const lookup = new AddressLookupTableAccount({ key: table, state: AddressLookupTableAccount.deserialize(account.data) });
  return { message: new TransactionMessage(o).compileToV0Message([lookup]), table };
}
