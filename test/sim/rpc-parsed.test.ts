import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { ComputeBudgetProgram, Connection, Keypair, PublicKey, SystemProgram, SYSVAR_RENT_PUBKEY, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import {
  AuthorityType,
  createApproveInstruction,
  createBurnInstruction,
  createInitializeMultisigInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
  MULTISIG_SIZE,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import type { RunningSimulator } from '../../src/sim/server.js';
import { airdrop, fundedWallet, startTestSim, USDC } from '../helpers/sim.js';

const TOKEN = TOKEN_PROGRAM_ID.toBase58();
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** A top-level instruction of a parsed program, as Agave writes it (no stack height). */
function topLevel(program: string, programId: string, type: string, info: unknown) {
  return { program, programId, parsed: info === undefined ? type : { info, type }, stackHeight: null };
}

describe('token and memo instructions, parsed as Agave parses them', () => {
  let sim: RunningSimulator;
  let conn: Connection;
  let wallet: Keypair;
  let walletAta: PublicKey;

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: T; error?: unknown };
    if (body.error !== undefined) throw new Error(`${method} answered ${JSON.stringify(body.error)}`);
    return body.result as T;
  }

  async function build(instructions: TransactionInstruction[]): Promise<VersionedTransaction> {
    const { blockhash } = await conn.getLatestBlockhash();
    return new VersionedTransaction(new TransactionMessage({ payerKey: wallet.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message());
  }

  /** Simulates with inner instructions, then lands it and returns the jsonParsed top-level instructions. */
  async function simulateAndLand(tx: VersionedTransaction, signers: Keypair[]): Promise<{ inner: unknown; instructions: unknown[] }> {
    const encoded = Buffer.from(tx.serialize()).toString('base64');
    const sim1 = await call<{ value: { err: unknown; innerInstructions: unknown } }>('simulateTransaction', [encoded, { encoding: 'base64', sigVerify: false, innerInstructions: true }]);
    expect(sim1.value.err).toBeNull();
    tx.sign(signers);
    const signature = await conn.sendRawTransaction(tx.serialize());
    const landed = await call<{ meta: { err: unknown }; transaction: { message: { instructions: unknown[] } } }>('getTransaction', [
      signature,
      { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
    expect(landed.meta.err).toBeNull();
    return { inner: sim1.value.innerInstructions, instructions: landed.transaction.message.instructions };
  }

  beforeAll(async () => {
    sim = await startTestSim({ seed: 22 });
    conn = new Connection(sim.rpcUrl, 'confirmed');
    wallet = await fundedWallet(sim, 3_000_000_000n, [[USDC, 90_000_000n]]);
    walletAta = getAssociatedTokenAddressSync(new PublicKey(USDC), wallet.publicKey);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('names the owner, delegate, authority and amounts of an approve, a transfer, a burn, setAuthority and a memo', async () => {
    const delegate = Keypair.generate().publicKey;
    const bob = Keypair.generate().publicKey;
    await airdrop(sim, bob.toBase58(), USDC, 1n);
    const bobAta = getAssociatedTokenAddressSync(new PublicKey(USDC), bob);
    const usdc = new PublicKey(USDC);
    const tx = await build([
      createApproveInstruction(walletAta, delegate, wallet.publicKey, 5_000_000n),
      createTransferInstruction(walletAta, bobAta, wallet.publicKey, 1_000_000n),
      createBurnInstruction(walletAta, usdc, wallet.publicKey, 250_000n),
      // Clearing the close authority first: once it is set, the owner no longer holds it.
      createSetAuthorityInstruction(walletAta, wallet.publicKey, AuthorityType.CloseAccount, null),
      createSetAuthorityInstruction(walletAta, wallet.publicKey, AuthorityType.CloseAccount, delegate),
      new TransactionInstruction({ programId: MEMO, keys: [{ pubkey: wallet.publicKey, isSigner: true, isWritable: false }], data: Buffer.from('guarded ✓', 'utf8') }),
    ]);
    const { inner, instructions } = await simulateAndLand(tx, [wallet]);
    expect(inner).toEqual([]);
    const owner = wallet.publicKey.toBase58();
    const account = walletAta.toBase58();
    expect(instructions).toEqual([
      topLevel('spl-token', TOKEN, 'approve', { amount: '5000000', delegate: delegate.toBase58(), owner, source: account }),
      topLevel('spl-token', TOKEN, 'transfer', { amount: '1000000', authority: owner, destination: bobAta.toBase58(), source: account }),
      topLevel('spl-token', TOKEN, 'burn', { account, amount: '250000', authority: owner, mint: USDC }),
      topLevel('spl-token', TOKEN, 'setAuthority', { account, authority: owner, authorityType: 'closeAccount', newAuthority: null }),
      topLevel('spl-token', TOKEN, 'setAuthority', { account, authority: owner, authorityType: 'closeAccount', newAuthority: delegate.toBase58() }),
      topLevel('spl-memo', MEMO.toBase58(), 'guarded ✓', undefined),
    ]);
  });

  it('names a multisig authority and its signers instead of an authority', async () => {
    const multisig = Keypair.generate();
    const [s1, s2] = [Keypair.generate(), Keypair.generate()];
    const rent = await conn.getMinimumBalanceForRentExemption(MULTISIG_SIZE);
    const create = await build([
      SystemProgram.createAccount({ fromPubkey: wallet.publicKey, newAccountPubkey: multisig.publicKey, lamports: rent, space: MULTISIG_SIZE, programId: TOKEN_PROGRAM_ID }),
      createInitializeMultisigInstruction(multisig.publicKey, [s1.publicKey, s2.publicKey], 1),
    ]);
    const created = await simulateAndLand(create, [wallet, multisig]);
    expect(created.instructions[1]).toEqual(
      topLevel('spl-token', TOKEN, 'initializeMultisig', { m: 1, multisig: multisig.publicKey.toBase58(), rentSysvar: SYSVAR_RENT_PUBKEY.toBase58(), signers: [s1.publicKey.toBase58(), s2.publicKey.toBase58()] }),
    );

    await airdrop(sim, multisig.publicKey.toBase58(), USDC, 3_000_000n);
    const source = getAssociatedTokenAddressSync(new PublicKey(USDC), multisig.publicKey);
    const send = await build([createTransferCheckedInstruction(source, new PublicKey(USDC), walletAta, multisig.publicKey, 2_500_000n, 6, [s1])]);
    const sent = await simulateAndLand(send, [wallet, s1]);
    expect(sent.instructions).toEqual([
      topLevel('spl-token', TOKEN, 'transferChecked', {
        destination: walletAta.toBase58(),
        mint: USDC,
        multisigAuthority: multisig.publicKey.toBase58(),
        signers: [s1.publicKey.toBase58()],
        source: source.toBase58(),
        tokenAmount: { amount: '2500000', decimals: 6, uiAmount: 2.5, uiAmountString: '2.5' },
      }),
    ]);
  });

  it('shows an instruction of a program Agave does not parse partially decoded, and reads token data as the program does', async () => {
    const limit = ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 });
    // Token programs ignore bytes after an instruction's fields, and so does Agave's parser.
    const checked = createTransferCheckedInstruction(walletAta, new PublicKey(USDC), walletAta, wallet.publicKey, 1n, 6);
    checked.data = Buffer.concat([checked.data, Buffer.from([7])]);
    const { instructions } = await simulateAndLand(await build([limit, checked]), [wallet]);
    expect(instructions[0]).toEqual({ programId: ComputeBudgetProgram.programId.toBase58(), accounts: [], data: bs58.encode(limit.data), stackHeight: null });
    expect(instructions[1]).toMatchObject({ program: 'spl-token', parsed: { type: 'transferChecked', info: { tokenAmount: { amount: '1', uiAmountString: '0.000001' } } } });
  });
});
