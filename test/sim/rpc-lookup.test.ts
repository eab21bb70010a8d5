import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressLookupTableProgram, Connection, Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction, type AddressLookupTableAccount, type TransactionInstruction } from '@solana/web3.js';
import { ACCOUNT_SIZE, createAssociatedTokenAccountInstruction, getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import type { RunningSimulator } from '../../src/sim/server.js';
import { control, fundedWallet, JUP, startTestSim } from '../helpers/sim.js';

const SYSTEM = SystemProgram.programId.toBase58();
const TOKEN = TOKEN_PROGRAM_ID.toBase58();

describe('a v0 transaction whose accounts come from an address lookup table', () => {
  let sim: RunningSimulator;
  let conn: Connection;
  let wallet: Keypair;
  let table: AddressLookupTableAccount;

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: T; error?: unknown };
    if (body.error !== undefined) throw new Error(`${method} answered ${JSON.stringify(body.error)}`);
    return body.result as T;
  }

  async function send(instructions: TransactionInstruction[]): Promise<string> {
    const { blockhash } = await conn.getLatestBlockhash();
    const tx = new VersionedTransaction(new TransactionMessage({ payerKey: wallet.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message());
    tx.sign([wallet]);
    return conn.sendRawTransaction(tx.serialize());
  }

  beforeAll(async () => {
    sim = await startTestSim({ seed: 25 });
    conn = new Connection(sim.rpcUrl, 'confirmed');
    wallet = await fundedWallet(sim, 2_000_000_000n);
    const recentSlot = (await conn.getSlot('confirmed')) - 1;
    const [create, address] = AddressLookupTableProgram.createLookupTable({ authority: wallet.publicKey, payer: wallet.publicKey, recentSlot });
    const extend = AddressLookupTableProgram.extendLookupTable({ authority: wallet.publicKey, payer: wallet.publicKey, lookupTable: address, addresses: [new PublicKey(JUP), TOKEN_PROGRAM_ID, SystemProgram.programId] });
    await send([create, extend]);
    // Addresses added to a table are usable from the next slot on.
    await control(sim, '/clock', { advanceMs: 800 });
    table = (await conn.getAddressLookupTable(address, { commitment: 'confirmed' })).value!;
    expect(table.state.addresses).toHaveLength(3);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('resolves inner instructions through the loaded addresses, in simulation and in the landed transaction', async () => {
    const owner = Keypair.generate().publicKey;
    const ata = getAssociatedTokenAddressSync(new PublicKey(JUP), owner);
    const instruction = createAssociatedTokenAccountInstruction(wallet.publicKey, ata, owner, new PublicKey(JUP));
    const { blockhash } = await conn.getLatestBlockhash();
    const message = new TransactionMessage({ payerKey: wallet.publicKey, recentBlockhash: blockhash, instructions: [instruction] }).compileToV0Message([table]);
    // The mint and both programs the ATA program calls are loaded from the table, not listed in the message.
    expect(message.staticAccountKeys.map((k) => k.toBase58())).not.toContain(TOKEN);
    const tx = new VersionedTransaction(message);
    const rent = await conn.getMinimumBalanceForRentExemption(ACCOUNT_SIZE);

    const simulated = await call<{ value: { err: unknown; innerInstructions: Array<{ index: number; instructions: Array<{ programId: string; parsed: unknown }> }> } }>('simulateTransaction', [
      Buffer.from(tx.serialize()).toString('base64'),
      { encoding: 'base64', sigVerify: false, innerInstructions: true, commitment: 'confirmed' },
    ]);
    expect(simulated.value.err).toBeNull();
    const inner = simulated.value.innerInstructions[0]!.instructions;
    expect(inner.map((ix) => ix.programId)).toEqual([TOKEN, SYSTEM, TOKEN, TOKEN]);
    expect(inner[1]!.parsed).toEqual({ info: { lamports: rent, newAccount: ata.toBase58(), owner: TOKEN, source: wallet.publicKey.toBase58(), space: ACCOUNT_SIZE }, type: 'createAccount' });

    tx.sign([wallet]);
    const signature = await conn.sendRawTransaction(tx.serialize());
    const json = await call<{ meta: { loadedAddresses: { writable: string[]; readonly: string[] }; innerInstructions: Array<{ instructions: Array<{ programIdIndex: number }> }> } }>('getTransaction', [
      signature,
      { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
    // Loaded in the order the message's lookup lists them (its accounts' order: mint, system program, token program).
    const lookedUp = message.addressTableLookups[0]!.readonlyIndexes.map((i) => table.state.addresses[i]!.toBase58());
    expect(lookedUp).toEqual([JUP, SYSTEM, TOKEN]);
    expect(json.meta.loadedAddresses).toEqual({ writable: [], readonly: lookedUp });
    const keys = [...message.staticAccountKeys.map((k) => k.toBase58()), ...json.meta.loadedAddresses.writable, ...json.meta.loadedAddresses.readonly];
    expect(json.meta.innerInstructions[0]!.instructions.map((ix) => keys[ix.programIdIndex])).toEqual([TOKEN, SYSTEM, TOKEN, TOKEN]);

    const parsed = await call<{ transaction: { message: { accountKeys: Array<{ pubkey: string; source: string }> } }; meta: { innerInstructions: unknown } }>('getTransaction', [
      signature,
      { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
    expect(parsed.transaction.message.accountKeys.filter((k) => k.source === 'lookupTable').map((k) => k.pubkey)).toEqual(lookedUp);
    expect(parsed.meta.innerInstructions).toEqual(simulated.value.innerInstructions);
  });
});
