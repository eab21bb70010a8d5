import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AddressLookupTableAccount,
  AddressLookupTableProgram,
  ComputeBudgetProgram,
  Keypair,
  Message,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import {
  AuthorityType,
  createApproveInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { assertGuardPassed, GuardRefusal, GuardRpcError, guardTransaction, type GuardPolicy, type GuardReport } from '../../src/solana/guard.js';
import { allowedProgramsFor, PROGRAM_IDS, type ApiArea } from '../../src/solana/programs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { control, fundedWallet, startTestSim, SOL, USDC } from '../helpers/sim.js';

const FEE_BUDGET = 10_000_000n; // 0.01 SOL
const USDC_MINT = new PublicKey(USDC);

function rules(report: GuardReport): string[] {
  return [...new Set(report.violations.map((v) => v.rule))].sort();
}

function policyFor(wallet: PublicKey, maxOutflow: Array<[string, bigint]> = [], area: ApiArea = 'ultra', extra: Partial<GuardPolicy> = {}): GuardPolicy {
  return { wallet, area, allowedPrograms: allowedProgramsFor(area), maxOutflow: new Map(maxOutflow), feeBudgetLamports: FEE_BUDGET, ...extra };
}

describe('the pre-sign guard, against the simulator', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;

  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
  });
  afterAll(async () => {
    await sim.close();
  });

  async function ultraOrder(wallet: Keypair, inputMint: string, outputMint: string, amount: bigint) {
    const order = await jup.ultra.getOrder({ inputMint, outputMint, amount, taker: wallet.publicKey.toBase58() });
    return { order, tx: VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64')) };
  }

  async function txOf(payer: PublicKey, instructions: TransactionInstruction[], tables: AddressLookupTableAccount[] = []): Promise<VersionedTransaction> {
    const { blockhash } = await rpc.connection.getLatestBlockhash();
    return new VersionedTransaction(new TransactionMessage({ payerKey: payer, recentBlockhash: blockhash, instructions }).compileToV0Message(tables));
  }

  describe('when an Ultra order is what the intent asked for', () => {
    it('passes a SOL to USDC order, reporting the co-signer and the wallet changes', async () => {
      const wallet = await fundedWallet(sim, 2_000_000_000n);
      const { order, tx } = await ultraOrder(wallet, SOL, USDC, 500_000_000n);
      const report = await guardTransaction(tx, policyFor(wallet.publicKey, [[SOL, 500_000_000n]]), rpc);
      expect(report.violations).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.simulated).toBe(true);
      expect(report.feePayer).toBe(wallet.publicKey.toBase58());
      expect(report.signers[0]).toBe(wallet.publicKey.toBase58());
      expect(report.signers.length).toBe(2); // the venue's market maker co-signs
      expect(report.programs).toContain('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
      expect(report.changes.tokens).toEqual([{ mint: USDC, delta: order.outAmount }]);
      // The input and the fee leave; the new USDC account's rent stays the wallet's.
      expect(report.changes.lamports).toBe(-(500_000_000n + report.feeLamports!));
      expect(report.unitsConsumed).toBeGreaterThan(0);
      expect(() => assertGuardPassed(report)).not.toThrow();
    });

    it('passes a USDC to SOL order with the input amount as the only outflow', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const { order, tx } = await ultraOrder(wallet, USDC, SOL, 2_000_000n);
      const report = await guardTransaction(tx, policyFor(wallet.publicKey, [[USDC, 2_000_000n]], 'ultra', { minInflow: new Map([[SOL, order.otherAmountThreshold]]) }), rpc);
      expect(report.violations).toEqual([]);
      expect(report.changes.tokens).toEqual([{ mint: USDC, delta: -2_000_000n }]);
      expect(report.changes.lamports).toBe(order.outAmount - report.feeLamports!);
    });
  });

  describe('when the venue hands out a hostile order', () => {
    it('refuses it for both the extra SOL and the extra input tokens', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      await control(sim, '/faults', { kind: 'hostile-order', count: 1 });
      const { tx } = await ultraOrder(wallet, USDC, SOL, 2_000_000n);
      const report = await guardTransaction(tx, policyFor(wallet.publicKey, [[USDC, 2_000_000n]]), rpc);
      expect(report.ok).toBe(false);
      expect(rules(report)).toEqual(['sol-outflow', 'token-outflow']);
      expect(report.changes.tokens).toEqual([{ mint: USDC, delta: -4_000_000n }]);
      const refusal = new GuardRefusal(report.violations);
      expect(refusal.code).toBe('GUARD_REFUSED');
      expect(refusal.action).toBe('abandon');
      expect(refusal.message).toContain('sol-outflow');
      expect(refusal.message).toContain('token-outflow');
      expect(() => assertGuardPassed(report)).toThrow(GuardRefusal);
    });

    it('catches a stolen output with minInflow even when the net SOL stays within the budget', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const { order, tx } = await ultraOrder(wallet, USDC, SOL, 2_000_000n);
      // The same order, but the wallet expects more SOL than the venue pays: as if part of the output were redirected.
      const report = await guardTransaction(tx, policyFor(wallet.publicKey, [[USDC, 2_000_000n]], 'ultra', { minInflow: new Map([[SOL, order.outAmount + FEE_BUDGET]]) }), rpc);
      expect(rules(report)).toEqual(['inflow-short']);
    });
  });

  describe('when the transaction is not the wallet\'s to pay for', () => {
    it('refuses another fee payer', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const other = await fundedWallet(sim, 1_000_000_000n);
      const memo = new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [], data: Buffer.from('hi') });
      const report = await guardTransaction(await txOf(other.publicKey, [memo]), policyFor(wallet.publicKey), rpc);
      expect(rules(report)).toEqual(['fee-payer']);
      expect(report.feePayer).toBe(other.publicKey.toBase58());
    });
  });

  describe('when the transaction invokes a program off the allowlist', () => {
    it('refuses a random program, whose simulation also fails', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const stranger = Keypair.generate().publicKey;
      const ix = new TransactionInstruction({ programId: stranger, keys: [{ pubkey: wallet.publicKey, isSigner: true, isWritable: true }], data: Buffer.alloc(0) });
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), policyFor(wallet.publicKey), rpc);
      expect(rules(report)).toEqual(['program-not-allowed', 'simulation-failed']);
      expect(report.programs).toContain(stranger.toBase58());
      expect(report.simulated).toBe(false);
    });

    it('refuses a program the area does not list (an Ultra order checked against a list without Memo v2)', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const { tx } = await ultraOrder(wallet, SOL, USDC, 100_000_000n);
      const withoutMemo = new Set([...allowedProgramsFor('trigger')].filter((p) => p !== PROGRAM_IDS.memoV2));
      const report = await guardTransaction(tx, policyFor(wallet.publicKey, [[SOL, 100_000_000n]], 'trigger', { allowedPrograms: withoutMemo }), rpc);
      expect(rules(report)).toEqual(['program-not-allowed']);
      expect(report.violations[0]!.message).toContain(PROGRAM_IDS.memoV2);
      expect(report.simulated).toBe(true);
    });
  });

  describe('when the transaction hands out an authority over a wallet token account', () => {
    it('refuses a delegate approval on the wallet USDC account', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const ata = getAssociatedTokenAddressSync(USDC_MINT, wallet.publicKey);
      const ix = createApproveInstruction(ata, Keypair.generate().publicKey, wallet.publicKey, 10_000_000n);
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), policyFor(wallet.publicKey), rpc);
      expect(rules(report)).toEqual(['authority-change']);
      expect(report.violations[0]!.message).toContain('delegate');
    });

    it('refuses giving the account to another owner, which also takes its tokens', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const ata = getAssociatedTokenAddressSync(USDC_MINT, wallet.publicKey);
      const ix = createSetAuthorityInstruction(ata, wallet.publicKey, AuthorityType.AccountOwner, Keypair.generate().publicKey);
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), policyFor(wallet.publicKey), rpc);
      expect(rules(report)).toEqual(['authority-change', 'token-outflow']);
      expect(report.changes.tokens).toEqual([{ mint: USDC, delta: -10_000_000n }]);
    });

    it('refuses a close authority set to someone else', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const ata = getAssociatedTokenAddressSync(USDC_MINT, wallet.publicKey);
      const ix = createSetAuthorityInstruction(ata, wallet.publicKey, AuthorityType.CloseAccount, Keypair.generate().publicKey);
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), policyFor(wallet.publicKey), rpc);
      expect(rules(report)).toEqual(['authority-change']);
    });
  });

  describe('when the transaction spends more than allowed', () => {
    it('refuses a plain SOL transfer beyond the fee budget and passes one within it', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const to = Keypair.generate().publicKey;
      const big = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: to, lamports: 20_000_000 });
      const refused = await guardTransaction(await txOf(wallet.publicKey, [big]), policyFor(wallet.publicKey), rpc);
      expect(rules(refused)).toEqual(['sol-outflow']);
      expect(refused.changes.lamports).toBe(-20_005_000n);
      const small = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: to, lamports: 1_000_000 });
      const passed = await guardTransaction(await txOf(wallet.publicKey, [small]), policyFor(wallet.publicKey), rpc);
      expect(passed.violations).toEqual([]);
    });

    it('refuses a token transfer of a mint the intent does not spend', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const ata = getAssociatedTokenAddressSync(USDC_MINT, wallet.publicKey);
      const other = await fundedWallet(sim, 0n, [[USDC, 1n]]);
      const ix = createTransferCheckedInstruction(ata, USDC_MINT, getAssociatedTokenAddressSync(USDC_MINT, other.publicKey), wallet.publicKey, 1n, 6);
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), policyFor(wallet.publicKey, [[SOL, 1_000n]]), rpc);
      expect(rules(report)).toEqual(['token-outflow']);
    });

    it('refuses a priority fee beyond the fee budget before simulating', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const ixs = [ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 100_000_000 })];
      const report = await guardTransaction(await txOf(wallet.publicKey, ixs), policyFor(wallet.publicKey), rpc);
      expect(report.feeLamports).toBe(5_000n + 20_000_000n);
      expect(rules(report)).toContain('fee-budget');
      // The simulator charges the fee in the post-simulation state, so the SOL check sees it too.
      expect(rules(report)).toContain('sol-outflow');
    });

    it('refuses a durable-nonce transaction, which would never expire', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const ix = SystemProgram.nonceAdvance({ noncePubkey: Keypair.generate().publicKey, authorizedPubkey: wallet.publicKey });
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), policyFor(wallet.publicKey), rpc);
      expect(rules(report)).toContain('durable-nonce');
    });
  });

  describe('when the transaction is a legacy one', () => {
    it('decodes and checks it like a v0 transaction', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const { blockhash } = await rpc.connection.getLatestBlockhash();
      const pay = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 2_000_000 });
      const tx = new VersionedTransaction(Message.compile({ payerKey: wallet.publicKey, recentBlockhash: blockhash, instructions: [pay] }));
      expect(tx.version).toBe('legacy');
      const report = await guardTransaction(tx, policyFor(wallet.publicKey, [[SOL, 2_000_000n]]), rpc);
      expect(report.violations).toEqual([]);
      expect(report.changes.lamports).toBe(-2_005_000n);
    });
  });

  describe('when the transaction uses address lookup tables', () => {
    it('resolves a table through RPC and checks the accounts it loads', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const dest = Keypair.generate().publicKey;
      const slotHashes = await rpc.connection.getAccountInfo(new PublicKey('SysvarS1otHashes111111111111111111111111111'));
      const recentSlot = Number(slotHashes!.data.readBigUInt64LE(8));
      const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: wallet.publicKey, payer: wallet.publicKey, recentSlot });
      const extend = AddressLookupTableProgram.extendLookupTable({ authority: wallet.publicKey, payer: wallet.publicKey, lookupTable: table, addresses: [dest] });
      const setup = await txOf(wallet.publicKey, [create, extend]);
      setup.sign([wallet]);
      await rpc.send(setup.serialize());
      await control(sim, '/clock', { advanceMs: 2_000 }); // extended addresses are usable from the next slot
      const alt = (await rpc.connection.getAddressLookupTable(table)).value!;
      const pay = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: dest, lamports: 30_000_000 });
      const tx = await txOf(wallet.publicKey, [pay], [alt]);
      expect(tx.message.addressTableLookups).toHaveLength(1);
      const report = await guardTransaction(tx, policyFor(wallet.publicKey, [[SOL, 20_000_000n]]), rpc);
      expect(rules(report)).toEqual(['sol-outflow']);
      expect(report.changes.lamports).toBe(-30_005_000n);
    });

    it('refuses a transaction whose lookup table does not exist', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const dest = Keypair.generate().publicKey;
      const ghost = new AddressLookupTableAccount({
        key: Keypair.generate().publicKey,
        state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [dest] },
      });
      const pay = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: dest, lamports: 1_000 });
      const report = await guardTransaction(await txOf(wallet.publicKey, [pay], [ghost]), policyFor(wallet.publicKey), rpc);
      expect(rules(report)).toEqual(['lookup-table']);
      expect(report.violations[0]!.message).toContain(ghost.key.toBase58());
      expect(report.simulated).toBe(false);
    });
  });

  describe('when the RPC node cannot be reached', () => {
    it('throws a retryable GuardRpcError instead of deciding', async () => {
      const wallet = Keypair.generate();
      const dead = new SolanaRpc('http://127.0.0.1:9/rpc');
      const tx = await txOf(wallet.publicKey, [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 })]);
      const err = await guardTransaction(tx, policyFor(wallet.publicKey), dead).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GuardRpcError);
      expect((err as GuardRpcError).action).toBe('retry');
    });
  });
});
