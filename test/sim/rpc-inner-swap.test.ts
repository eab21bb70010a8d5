import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComputeBudgetProgram, Connection, PublicKey, SystemProgram, VersionedTransaction, type Keypair } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { control, fundedWallet, SOL, startTestSim } from '../helpers/sim.js';

const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
const TOKEN_2022 = TOKEN_2022_PROGRAM_ID.toBase58();
/** A Token-2022 account with the ImmutableOwner extension: 165 bytes, the account type, one empty TLV entry. */
const TOKEN_2022_ATA_SIZE = 170;

interface SimValue {
  err: unknown;
  accounts: Array<{ lamports: number } | null> | null;
  innerInstructions: Array<{ index: number; instructions: unknown[] }> | null;
}

/** The fee Agave charges: 5000 lamports a signature plus the priority fee (CU limit x price, rounded up). */
function agaveFee(tx: VersionedTransaction): number {
  const m = tx.message;
  let limit = 200_000n;
  let price = 0n;
  for (const ix of m.compiledInstructions) {
    if (!m.staticAccountKeys[ix.programIdIndex]!.equals(ComputeBudgetProgram.programId)) continue;
    const data = Buffer.from(ix.data);
    if (data[0] === 2) limit = BigInt(data.readUInt32LE(1));
    if (data[0] === 3) price = data.readBigUInt64LE(1);
  }
  return Number(BigInt(m.header.numRequiredSignatures) * 5000n + (limit * price + 999_999n) / 1_000_000n);
}

describe('an Ultra swap from the simulator venue, simulated with inner instructions', () => {
  let sim: RunningSimulator;
  let conn: Connection;
  let jup: JupiterClient;
  let wallet: Keypair;

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: T; error?: unknown };
    if (body.error !== undefined) throw new Error(`${method} answered ${JSON.stringify(body.error)}`);
    return body.result as T;
  }

  beforeAll(async () => {
    sim = await startTestSim({ seed: 24 });
    conn = new Connection(sim.rpcUrl, 'confirmed');
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    wallet = await fundedWallet(sim, 3_000_000_000n);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('shows the Token-2022 account creation as the only CPIs, and the wallet after it with the fee deducted', async () => {
    const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: PYUSD, amount: 250_000_000n, taker: wallet.publicKey.toBase58() });
    const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64'));
    const keys = tx.message.staticAccountKeys;
    const createIndex = tx.message.compiledInstructions.findIndex((ix) => keys[ix.programIdIndex]!.equals(ASSOCIATED_TOKEN_PROGRAM_ID));
    const ata = getAssociatedTokenAddressSync(new PublicKey(PYUSD), wallet.publicKey, false, TOKEN_2022_PROGRAM_ID).toBase58();
    const rent = await conn.getMinimumBalanceForRentExemption(TOKEN_2022_ATA_SIZE);
    expect(order.rentFeeLamports).toBe(rent);
    const before = await conn.getBalance(wallet.publicKey, 'confirmed');

    const { value } = await call<{ value: SimValue }>('simulateTransaction', [
      order.transaction,
      { encoding: 'base64', sigVerify: false, innerInstructions: true, commitment: 'confirmed', accounts: { encoding: 'base64', addresses: [wallet.publicKey.toBase58(), ata] } },
    ]);
    expect(value.err).toBeNull();
    const payer = wallet.publicKey.toBase58();
    const step = (type: string, info: Record<string, unknown>, program = 'spl-token', programId = TOKEN_2022) => ({ program, programId, parsed: { info, type }, stackHeight: 2 });
    expect(value.innerInstructions).toEqual([
      {
        index: createIndex,
        instructions: [
          step('getAccountDataSize', { extensionTypes: ['immutableOwner'], mint: PYUSD }),
          step('createAccount', { lamports: rent, newAccount: ata, owner: TOKEN_2022, source: payer, space: TOKEN_2022_ATA_SIZE }, 'system', SystemProgram.programId.toBase58()),
          step('initializeImmutableOwner', { account: ata }),
          step('initializeAccount3', { account: ata, mint: PYUSD, owner: payer }),
        ],
      },
    ]);
    // As in Agave, the fee payer's state after the simulation has the whole fee (both signatures and the priority
    // fee) taken, besides what the instructions moved.
    expect(before - value.accounts![0]!.lamports).toBe(Number(order.inAmount) + rent + agaveFee(tx));
    expect(value.accounts![1]!.lamports).toBe(rent);
  });

  it('lands with the same inner instructions in getTransaction, the venue\'s payment parsed as a Token-2022 transferChecked', async () => {
    const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: PYUSD, amount: 100_000_000n, taker: wallet.publicKey.toBase58() });
    const { value } = await call<{ value: SimValue }>('simulateTransaction', [order.transaction, { encoding: 'base64', sigVerify: false, innerInstructions: true }]);
    const signed = VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64'));
    signed.sign([wallet]);
    const executed = await jup.ultra.executeOrder({ signedTransaction: Buffer.from(signed.serialize()).toString('base64'), requestId: order.requestId });
    expect(executed.status).toBe('Success');
    const venue = await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET');

    const landed = await call<{ transaction: { message: { instructions: Array<Record<string, unknown>> } }; meta: { innerInstructions: unknown } }>('getTransaction', [
      executed.signature,
      { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
    // The first test only simulated: this swap creates the account, and records the same CPIs its simulation showed.
    expect(value.innerInstructions).toHaveLength(1);
    expect(landed.meta.innerInstructions).toEqual(value.innerInstructions);
    const payOut = landed.transaction.message.instructions.find((ix) => (ix.parsed as { type?: string } | undefined)?.type === 'transferChecked');
    const ata = getAssociatedTokenAddressSync(new PublicKey(PYUSD), wallet.publicKey, false, TOKEN_2022_PROGRAM_ID).toBase58();
    expect(payOut).toMatchObject({ program: 'spl-token', programId: TOKEN_2022, parsed: { info: { authority: venue.coSigners[0], destination: ata, mint: PYUSD } }, stackHeight: null });
    const budget = landed.transaction.message.instructions.filter((ix) => ix.programId === ComputeBudgetProgram.programId.toBase58());
    expect(budget).toHaveLength(2);
    expect(budget.every((ix) => !('parsed' in ix) && Array.isArray(ix.accounts))).toBe(true);
  });
});
