import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Configuration, SwapApi } from '@jup-ag/api';
import { VersionedTransaction } from '@solana/web3.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { balances, fundedWallet, ledger, simConnection, startTestSim, SOL, USDC, JUP } from '../helpers/sim.js';

/** The official client pointed at the simulator (createJupiterApiClient pins Jupiter's own hosts; SwapApi does not). */
function officialClient(sim: RunningSimulator): SwapApi {
  return new SwapApi(new Configuration({ basePath: `${sim.url}/swap/v1` }));
}

describe("Jupiter's official client against the simulator", () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 1 });
  });
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 150));
    await sim.close();
  });

  it('quotes and builds with @jup-ag/api, then web3.js sends and confirms, moving balances by the quoted amounts', async () => {
    const wallet = await fundedWallet(sim, 3_000_000_000n);
    const api = officialClient(sim);
    const quote = await api.quoteGet({ inputMint: SOL, outputMint: USDC, amount: 250_000_000, slippageBps: 50 });
    expect(BigInt(quote.outAmount)).toBeGreaterThan(0n);
    const swap = await api.swapPost({ swapRequest: { userPublicKey: wallet.publicKey.toBase58(), quoteResponse: quote, wrapAndUnwrapSol: true, dynamicComputeUnitLimit: true } });
    expect(swap.lastValidBlockHeight).toBeGreaterThan(0);

    const tx = VersionedTransaction.deserialize(Buffer.from(swap.swapTransaction, 'base64'));
    tx.sign([wallet]);
    const connection = simConnection(sim);
    const before = await balances(sim, wallet);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const confirmation = await connection.confirmTransaction({ signature, blockhash: tx.message.recentBlockhash, lastValidBlockHeight: swap.lastValidBlockHeight }, 'confirmed');
    expect(confirmation.value.err).toBeNull();

    const after = await balances(sim, wallet);
    const received = (after.tokens[USDC] ?? 0n) - (before.tokens[USDC] ?? 0n);
    expect(received).toBeGreaterThanOrEqual(BigInt(quote.otherAmountThreshold));
    expect(received).toBeLessThanOrEqual((BigInt(quote.outAmount) * 10_050n) / 10_000n);
    const spent = before.lamports - after.lamports;
    expect(spent).toBeGreaterThanOrEqual(250_000_000n);
    expect(spent).toBeLessThan(250_000_000n + 5_000_000n);
    const settled = (await ledger(sim)).filter((t) => t.signature === signature);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ kind: 'swap', inputMint: SOL, inputAmount: '250000000', outputMint: USDC });
  });

  it('builds swap-instructions that a caller can assemble into its own transaction', async () => {
    const wallet = await fundedWallet(sim, 2_000_000_000n, [[USDC, 40_000_000n]]);
    const api = officialClient(sim);
    const quote = await api.quoteGet({ inputMint: USDC, outputMint: JUP, amount: 10_000_000, slippageBps: 100 });
    const ixs = await api.swapInstructionsPost({ swapRequest: { userPublicKey: wallet.publicKey.toBase58(), quoteResponse: quote } });
    expect(ixs.swapInstruction.programId).toBeTruthy();
    expect(ixs.setupInstructions.length).toBeGreaterThan(0);
  });

  it('answers a route error in the shape the official client expects', async () => {
    const api = officialClient(sim);
    const err = await api.quoteGet({ inputMint: SOL, outputMint: USDC, amount: 1_000, slippageBps: 50, maxAccounts: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const res = (err as { response?: Response }).response;
    expect(res?.status).toBe(400);
    expect(await res?.json()).toMatchObject({ errorCode: 'COULD_NOT_FIND_ANY_ROUTE' });
  });
});
