import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '@solana/web3.js';
import { ComputeBudgetProgram, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { SchemaError } from '../../src/jupiter/errors.js';
import type { ApiInstruction } from '../../src/jupiter/schemas.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { balances, control, fundedWallet, ledger, simConnection, startTestSim, SOL, USDC } from '../helpers/sim.js';

function toInstruction(ix: ApiInstruction): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(ix.programId),
    keys: ix.accounts.map((a) => ({ pubkey: new PublicKey(a.pubkey), isSigner: a.isSigner, isWritable: a.isWritable })),
    data: Buffer.from(ix.data, 'base64'),
  });
}

describe('swap-instructions and program labels through our own client', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let connection: Connection;
  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 1 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    connection = simConnection(sim);
  });
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 150));
    await sim.close();
  });

  it('lets the caller compose its own transaction (with its own priority fee) that settles once', async () => {
    const wallet = await fundedWallet(sim, 2_000_000_000n);
    const { quote, raw } = await jup.swap.getQuote({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, slippageBps: 50 });
    const ixs = await jup.swap.getSwapInstructions({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: raw });
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 20_000 }),
        ...ixs.setupInstructions.map(toInstruction),
        toInstruction(ixs.swapInstruction),
        ...ixs.otherInstructions.map(toInstruction),
      ],
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    tx.sign([wallet]);
    const signature = await connection.sendRawTransaction(tx.serialize());
    await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
    const after = await balances(sim, wallet);
    expect(after.tokens[USDC]).toBeGreaterThanOrEqual(quote.otherAmountThreshold);
    expect((await ledger(sim)).filter((t) => t.signature === signature)).toHaveLength(1);
  });

  it('never co-signs the vault side of a trade without the taker side', async () => {
    const wallet = await fundedWallet(sim, 2_000_000_000n);
    const { raw } = await jup.swap.getQuote({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, slippageBps: 50 });
    const ixs = await jup.swap.getSwapInstructions({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: raw });
    const { blockhash } = await connection.getLatestBlockhash();
    // Only the vault's payment and the memo: the wallet would receive USDC without paying any SOL.
    const message = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: blockhash,
      instructions: [...ixs.setupInstructions.slice(0, -1).map(toInstruction), toInstruction(ixs.swapInstruction), ...ixs.otherInstructions.map(toInstruction)],
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    tx.sign([wallet]);
    await expect(connection.sendRawTransaction(tx.serialize())).rejects.toThrow(/signature verification failure/i);
    expect((await balances(sim, wallet)).tokens[USDC] ?? 0n).toBe(0n);
  });

  it('lists program labels, and refuses a broken body', async () => {
    const labels = await jup.swap.getProgramIdToLabel();
    expect(labels.JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4).toBe('Jupiter V6');
    await control(sim, '/faults', { kind: 'schema-break', count: 1, pathPrefix: '/swap/v1/program-id-to-label' });
    await expect(jup.swap.getProgramIdToLabel()).rejects.toBeInstanceOf(SchemaError);
  });
});
