import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicKey, TransactionMessage, VersionedTransaction, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import { getDepositIx, getLendingProgram, getWithdrawIx } from '@jup-ag/lend/earn';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { PROGRAM_IDS } from '../../src/lib/programIds.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { lendDepositCheck } from '../../src/execution/productGuard/lend.js';
import { guardTransaction, type GuardPolicy } from '../../src/solana/guard.js';
import type { SpendRule } from '../../src/solana/guardTypes.js';
import { allowedProgramsFor } from '../../src/solana/programs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { fundedWallet, startTestSim, SOL, USDC } from '../helpers/sim.js';

const LEND = PROGRAM_IDS.jupiterLendEarn;
const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';
/** The SDK's amount type (bn.js's BN), as its builders take it. */
type SdkAmount = Parameters<typeof getDepositIx>[0]['amount'];

// The Earn program as the venue writes it, checked against the SDK's own Anchor coder and builders, and the
// venue's Earn transactions as the bot's guard judges them.
describe('the lend program on the simulator', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(sim.rpcUrl);
  });
  afterAll(async () => {
    await sim.close();
  });

  const program = () => getLendingProgram({ connection: sim.ctx.state.lend.connection });
  const decode = (tx: VersionedTransaction): TransactionInstruction[] => TransactionMessage.decompile(tx.message).instructions;
  const lendIx = (ixs: TransactionInstruction[]) => ixs.find((i) => i.programId.toBase58() === LEND)!;
  /** The SDK's Anchor coder reading instruction data (its Borsh coder decodes; the interface type only encodes). */
  const decodeIx = (data: Buffer): { name: string; data: { assets?: SdkAmount; amount?: SdkAmount } } | null => {
    const coder: unknown = program().coder.instruction;
    if (typeof coder !== 'object' || coder === null || !('decode' in coder) || typeof coder.decode !== 'function') throw new Error('the SDK coder cannot decode');
    return coder.decode(data);
  };

  it('encodes deposit and withdraw exactly as the SDK builds them, accounts included', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 30_000_000n]]);
    const signer = user.publicKey.toBase58();
    const dep = lendIx(decode(VersionedTransaction.deserialize(Buffer.from((await jup.lend.lendDeposit({ asset: USDC, signer, amount: 12_345_678n })).transaction, 'base64'))));
    const decoded = decodeIx(dep.data);
    expect(decoded?.name).toBe('deposit');
    const amount = decoded!.data.assets!;
    expect(amount.toString()).toBe('12345678');
    const sdk = await getDepositIx({ amount, asset: new PublicKey(USDC), signer: user.publicKey, connection: sim.ctx.state.lend.connection });
    expect(Buffer.from(dep.data).equals(Buffer.from(sdk.data))).toBe(true);
    expect(dep.keys).toEqual(sdk.keys);

    const wd = lendIx(decode(VersionedTransaction.deserialize(Buffer.from((await jup.lend.lendWithdraw({ asset: USDC, signer, amount: 5_000_000n })).transaction, 'base64'))));
    const wdDecoded = decodeIx(wd.data);
    expect(wdDecoded?.name).toBe('withdraw');
    const sdkWd = await getWithdrawIx({ amount: wdDecoded!.data.amount!, asset: new PublicKey(USDC), signer: user.publicKey, connection: sim.ctx.state.lend.connection });
    expect(Buffer.from(wd.data).equals(Buffer.from(sdkWd.data))).toBe(true);
    expect(wd.keys).toEqual(sdkWd.keys);
  });

  it('keeps each market in a lending account the SDK decodes, at the real address', async () => {
    const market = sim.ctx.state.lend.market(USDC)!;
    expect(market.addresses.lending.toBase58()).toBe('2vVYHYM8VYnvZqQWpTJSj8o8DBf1wM8pVs3bsTgYZiqJ');
    expect(market.addresses.vault.toBase58()).toBe('BmkUoKMFYBxNSzWXyUjyMJjMAaVz4d8ZnxwwmhDCUXFB');
    const info = await sim.ctx.state.lend.connection.getAccountInfo(market.addresses.lending);
    expect(info?.owner.toBase58()).toBe(LEND);
    const lending = (await program().account.lending.fetch(market.addresses.lending)) as { mint: PublicKey; fTokenMint: PublicKey; lendingId: number; decimals: number; tokenExchangePrice: { toString(): string } };
    expect(lending.mint.toBase58()).toBe(USDC);
    expect(lending.fTokenMint.toBase58()).toBe(JL_USDC);
    expect(lending.decimals).toBe(6);
    expect(BigInt(lending.tokenExchangePrice.toString())).toBeGreaterThanOrEqual(1_000_000_000_000n);
  });

  function policy(user: Keypair, spend: SpendRule, extra: Partial<GuardPolicy> = {}): GuardPolicy {
    return {
      wallet: user.publicKey,
      area: 'lend',
      allowedPrograms: allowedProgramsFor('lend'),
      coSigners: new Set(sim.ctx.state.venue.coSigners().map((k) => k.toBase58())),
      maxPriorityFeeLamports: 1_000_000n,
      spend,
      mayUnwrapSol: true,
      allowToken2022Mints: new Set(),
      ...extra,
    };
  }

  async function built(path: 'lendDeposit' | 'lendWithdraw', asset: string, user: Keypair, amount: bigint): Promise<VersionedTransaction> {
    const r = await jup.lend[path]({ asset, signer: user.publicKey.toBase58(), amount });
    return VersionedTransaction.deserialize(Buffer.from(r.transaction, 'base64'));
  }

  it('passes the guard as a deposit of exactly the amount into the vault of the liquidity PDA, USDC and SOL', async () => {
    const user = await fundedWallet(sim, 2_000_000_000n, [[USDC, 30_000_000n]]);
    for (const [asset, amount] of [[USDC, 30_000_000n], [SOL, 1_000_000_000n]] as const) {
      const tx = await built('lendDeposit', asset, user, amount);
      const escrow: SpendRule = { kind: 'escrow', mint: asset, amount };
      const product = lendDepositCheck({ kind: 'lend.deposit', asset, amount }, user.publicKey);
      expect((await guardTransaction(tx, policy(user, escrow, { product }), rpc)).violations, asset).toEqual([]);
      // One unit more than the intent is refused.
      expect((await guardTransaction(tx, policy(user, { ...escrow, amount: amount - 1n }, { product }), rpc)).violations.map((v) => v.rule)).toContain('escrow-amount');
      // The vault is the escrow because the deposit instruction names it (and the check derives it from the
      // programs' published seeds): without the instruction's terms, no account is an escrow and the deposit reads
      // as a payment to a stranger.
      expect((await guardTransaction(tx, policy(user, escrow), rpc)).violations.map((v) => v.rule)).toContain('destination');
      tx.sign([user]);
      await rpc.send(tx.serialize());
    }
  });

  it('passes the guard as a withdrawal that burns at most the allowed jlTokens and pays nothing out of the wallet', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 20_000_000n]]);
    const dep = await built('lendDeposit', USDC, user, 20_000_000n);
    dep.sign([user]);
    await rpc.send(dep.serialize());
    const tx = await built('lendWithdraw', USDC, user, 10_000_000n);
    const burnt = decode(tx).find((i) => i.programId.toBase58() === PROGRAM_IDS.splToken && i.data[0] === 8)!;
    const shares = Buffer.from(burnt.data).readBigUInt64LE(1);
    expect((await guardTransaction(tx, policy(user, { kind: 'nothing' }, { burn: { mint: JL_USDC, max: shares } }), rpc)).violations).toEqual([]);
    expect((await guardTransaction(tx, policy(user, { kind: 'nothing' }, { burn: { mint: JL_USDC, max: shares - 1n } }), rpc)).violations.map((v) => v.rule)).toContain('token-outflow');
    expect((await guardTransaction(tx, policy(user, { kind: 'nothing' }), rpc)).violations.map((v) => v.rule)).toContain('destination');
  });
});
