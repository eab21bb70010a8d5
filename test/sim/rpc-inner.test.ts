import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { Connection, Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import {
  ACCOUNT_SIZE,
  createAssociatedTokenAccountInstruction,
  createRecoverNestedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import type { RunningSimulator } from '../../src/sim/server.js';
import { airdrop, fundedWallet, JUP, startTestSim, USDC } from '../helpers/sim.js';

const SYSTEM = SystemProgram.programId.toBase58();
const TOKEN = TOKEN_PROGRAM_ID.toBase58();

/** A simulateTransaction answer's value, as the wire carries it. */
interface SimValue {
  err: unknown;
  logs: string[] | null;
  accounts: Array<{ lamports: number } | null> | null;
  innerInstructions: Array<{ index: number; instructions: unknown[] }> | null;
}

/** An inner instruction of a parsed program, as Agave writes it. */
function parsed(program: string, programId: string, type: string, info: Record<string, unknown>) {
  return { program, programId, parsed: { info, type }, stackHeight: 2 };
}

/** A UiTokenAmount for an amount of a 6-decimal token. */
function amount6(raw: bigint) {
  return { amount: raw.toString(), decimals: 6, uiAmount: Number(raw) / 1e6, uiAmountString: (Number(raw) / 1e6).toString() };
}

describe('inner instructions in simulateTransaction and getTransaction', () => {
  let sim: RunningSimulator;
  let conn: Connection;
  let wallet: Keypair;
  let rent: number;

  /** A raw JSON-RPC call that must succeed. */
  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: T; error?: unknown };
    if (body.error !== undefined) throw new Error(`${method} answered ${JSON.stringify(body.error)}`);
    return body.result as T;
  }

  async function unsigned(payer: PublicKey, instructions: TransactionInstruction[]): Promise<VersionedTransaction> {
    const { blockhash } = await conn.getLatestBlockhash();
    return new VersionedTransaction(new TransactionMessage({ payerKey: payer, recentBlockhash: blockhash, instructions }).compileToV0Message());
  }

  async function simulate(tx: VersionedTransaction, config: Record<string, unknown> = {}): Promise<SimValue> {
    const encoded = Buffer.from(tx.serialize()).toString('base64');
    const r = await call<{ value: SimValue }>('simulateTransaction', [encoded, { encoding: 'base64', sigVerify: false, innerInstructions: true, commitment: 'confirmed', ...config }]);
    return r.value;
  }

  beforeAll(async () => {
    sim = await startTestSim({ seed: 21 });
    conn = new Connection(sim.rpcUrl, 'confirmed');
    wallet = await fundedWallet(sim, 5_000_000_000n, [[USDC, 50_000_000n]]);
    rent = await conn.getMinimumBalanceForRentExemption(ACCOUNT_SIZE);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('reports none for a SOL transfer, which makes no CPI, and null unless asked', async () => {
    const tx = await unsigned(wallet.publicKey, [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 })]);
    expect((await simulate(tx)).innerInstructions).toEqual([]);
    expect((await simulate(tx, { innerInstructions: false })).innerInstructions).toBeNull();
  });

  it('shows an associated token account creation as the ATA program\'s CPIs into the token and system programs', async () => {
    const owner = Keypair.generate().publicKey;
    const ata = getAssociatedTokenAddressSync(new PublicKey(JUP), owner);
    const tx = await unsigned(wallet.publicKey, [createAssociatedTokenAccountInstruction(wallet.publicKey, ata, owner, new PublicKey(JUP))]);
    const value = await simulate(tx);
    expect(value.err).toBeNull();
    expect(value.innerInstructions).toEqual([
      {
        index: 0,
        instructions: [
          parsed('spl-token', TOKEN, 'getAccountDataSize', { extensionTypes: ['immutableOwner'], mint: JUP }),
          parsed('system', SYSTEM, 'createAccount', { lamports: rent, newAccount: ata.toBase58(), owner: TOKEN, source: wallet.publicKey.toBase58(), space: ACCOUNT_SIZE }),
          parsed('spl-token', TOKEN, 'initializeImmutableOwner', { account: ata.toBase58() }),
          parsed('spl-token', TOKEN, 'initializeAccount3', { account: ata.toBase58(), mint: JUP, owner: owner.toBase58() }),
        ],
      },
    ]);
  });

  it('shows a SOL transfer, allocate and assign made by the ATA program for an address that already holds lamports, under its own index only', async () => {
    const owner = Keypair.generate().publicKey;
    const ata = getAssociatedTokenAddressSync(new PublicKey(JUP), owner);
    const tx = await unsigned(wallet.publicKey, [
      SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: ata, lamports: 1_000_000 }),
      createAssociatedTokenAccountInstruction(wallet.publicKey, ata, owner, new PublicKey(JUP)),
    ]);
    const value = await simulate(tx);
    expect(value.err).toBeNull();
    expect(value.innerInstructions).toEqual([
      {
        index: 1,
        instructions: [
          parsed('spl-token', TOKEN, 'getAccountDataSize', { extensionTypes: ['immutableOwner'], mint: JUP }),
          parsed('system', SYSTEM, 'transfer', { destination: ata.toBase58(), lamports: rent - 1_000_000, source: wallet.publicKey.toBase58() }),
          parsed('system', SYSTEM, 'allocate', { account: ata.toBase58(), space: ACCOUNT_SIZE }),
          parsed('system', SYSTEM, 'assign', { account: ata.toBase58(), owner: TOKEN }),
          parsed('spl-token', TOKEN, 'initializeImmutableOwner', { account: ata.toBase58() }),
          parsed('spl-token', TOKEN, 'initializeAccount3', { account: ata.toBase58(), mint: JUP, owner: owner.toBase58() }),
        ],
      },
    ]);
  });

  it('shows the transferChecked and closeAccount the ATA program makes when it recovers a nested account', async () => {
    const ownerAta = getAssociatedTokenAddressSync(new PublicKey(USDC), wallet.publicKey);
    const nestedAta = getAssociatedTokenAddressSync(new PublicKey(JUP), ownerAta, true);
    const destinationAta = getAssociatedTokenAddressSync(new PublicKey(JUP), wallet.publicKey);
    await airdrop(sim, ownerAta.toBase58(), JUP, 7_250_000n);
    await airdrop(sim, wallet, JUP, 1n);
    const recover = createRecoverNestedInstruction(nestedAta, new PublicKey(JUP), destinationAta, ownerAta, new PublicKey(USDC), wallet.publicKey);
    const value = await simulate(await unsigned(wallet.publicKey, [recover]));
    expect(value.err).toBeNull();
    expect(value.innerInstructions).toEqual([
      {
        index: 0,
        instructions: [
          parsed('spl-token', TOKEN, 'transferChecked', {
            authority: ownerAta.toBase58(),
            destination: destinationAta.toBase58(),
            mint: JUP,
            source: nestedAta.toBase58(),
            tokenAmount: amount6(7_250_000n),
          }),
          parsed('spl-token', TOKEN, 'closeAccount', { account: nestedAta.toBase58(), destination: wallet.publicKey.toBase58(), owner: ownerAta.toBase58() }),
        ],
      },
    ]);
  });

  describe('when the transaction fails', () => {
    it('still shows what the instructions before the failure invoked', async () => {
      const owner = Keypair.generate().publicKey;
      const ata = getAssociatedTokenAddressSync(new PublicKey(JUP), owner);
      const tx = await unsigned(wallet.publicKey, [
        createAssociatedTokenAccountInstruction(wallet.publicKey, ata, owner, new PublicKey(JUP)),
        SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: owner, lamports: 1_000_000_000_000 }),
      ]);
      const value = await simulate(tx, { accounts: { addresses: [wallet.publicKey.toBase58()], encoding: 'base64' } });
      expect(value.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
      expect(value.accounts).toEqual([null]);
      expect(value.innerInstructions?.map((e) => [e.index, e.instructions.length])).toEqual([[0, 4]]);
    });

    it('answers null when it was refused before it ran (a fee payer that does not exist)', async () => {
      const nobody = Keypair.generate().publicKey;
      const value = await simulate(await unsigned(nobody, [SystemProgram.transfer({ fromPubkey: nobody, toPubkey: wallet.publicKey, lamports: 1 })]));
      expect(value.err).toBe('AccountNotFound');
      expect(value.innerInstructions).toBeNull();
    });
  });

  it('gives web3.js parsed inner instructions it accepts, with the post-simulation accounts', async () => {
    const owner = Keypair.generate().publicKey;
    const ata = getAssociatedTokenAddressSync(new PublicKey(JUP), owner);
    const tx = await unsigned(wallet.publicKey, [createAssociatedTokenAccountInstruction(wallet.publicKey, ata, owner, new PublicKey(JUP))]);
    const r = await conn.simulateTransaction(tx, { innerInstructions: true, sigVerify: false, accounts: { encoding: 'base64', addresses: [ata.toBase58()] } });
    expect(r.value.err).toBeNull();
    expect(r.value.accounts?.[0]?.lamports).toBe(rent);
    const inner = r.value.innerInstructions?.[0]?.instructions ?? [];
    expect(inner).toHaveLength(4);
    expect(inner[1]).toMatchObject({ program: 'system', parsed: { type: 'createAccount', info: { newAccount: ata.toBase58(), lamports: rent } } });
    expect('programId' in inner[1]! && inner[1].programId.equals(SystemProgram.programId)).toBe(true);
  });

  describe('when an associated token account creation has landed', () => {
    let signature: string;
    let ata: PublicKey;
    let owner: PublicKey;

    beforeAll(async () => {
      owner = Keypair.generate().publicKey;
      ata = getAssociatedTokenAddressSync(new PublicKey(JUP), owner);
      const tx = await unsigned(wallet.publicKey, [createAssociatedTokenAccountInstruction(wallet.publicKey, ata, owner, new PublicKey(JUP))]);
      tx.sign([wallet]);
      signature = await conn.sendRawTransaction(tx.serialize());
    });

    it('gives getTransaction json the compiled inner instructions, indexes into the account keys', async () => {
      type Compiled = { programIdIndex: number; accounts: number[]; data: string; stackHeight: number };
      const tx = await call<{ transaction: { message: { accountKeys: string[] } }; meta: { innerInstructions: Array<{ index: number; instructions: Compiled[] }>; loadedAddresses: unknown } }>(
        'getTransaction',
        [signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }],
      );
      const keys = tx.transaction.message.accountKeys;
      const inner = tx.meta.innerInstructions;
      expect(inner.map((e) => e.index)).toEqual([0]);
      expect(inner[0]!.instructions.map((ix) => keys[ix.programIdIndex])).toEqual([TOKEN, SYSTEM, TOKEN, TOKEN]);
      expect(inner[0]!.instructions.map((ix) => ix.stackHeight)).toEqual([2, 2, 2, 2]);
      expect(inner[0]!.instructions[1]!.accounts.map((i) => keys[i])).toEqual([wallet.publicKey.toBase58(), ata.toBase58()]);
      expect(inner[0]!.instructions[2]).toMatchObject({ data: bs58.encode([22]) }); // initializeImmutableOwner
      expect(tx.meta.loadedAddresses).toEqual({ writable: [], readonly: [] });
    });

    it('gives getTransaction jsonParsed the parsed top-level and inner instructions', async () => {
      const tx = await call<{ transaction: { message: { instructions: unknown[] } }; meta: { innerInstructions: Array<{ instructions: unknown[] }> } & Record<string, unknown> }>(
        'getTransaction',
        [signature, { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }],
      );
      expect(tx.transaction.message.instructions).toEqual([
        {
          program: 'spl-associated-token-account',
          programId: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
          parsed: { info: { account: ata.toBase58(), mint: JUP, source: wallet.publicKey.toBase58(), systemProgram: SYSTEM, tokenProgram: TOKEN, wallet: owner.toBase58() }, type: 'create' },
          stackHeight: null,
        },
      ]);
      expect(tx.meta.innerInstructions[0]!.instructions[3]).toEqual(parsed('spl-token', TOKEN, 'initializeAccount3', { account: ata.toBase58(), mint: JUP, owner: owner.toBase58() }));
      expect(tx.meta).not.toHaveProperty('loadedAddresses');
    });
  });
});
