import { createServer, type Server } from 'node:http';
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
  createInitializeMint2Instruction,
  createInitializePermanentDelegateInstruction,
  createMintToInstruction,
  ExtensionType,
  getMintLen,
  TOKEN_2022_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import type { MarketData } from '../../src/engine/ports.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { Intent } from '../../src/sdk/intents.js';
import { assertGuardPassed, GuardRefusal, GuardUnavailable, guardTransaction, type GuardPolicy, type GuardReport } from '../../src/solana/guard.js';
import { allowedProgramsFor, PROGRAM_IDS, TIP_ACCOUNTS } from '../../src/solana/programs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { airdrop, BONK, control, fundedWallet, startTestSim, SOL, USDC } from '../helpers/sim.js';

const USDC_MINT = new PublicKey(USDC);
const CAP = 1_000_000n;

function rules(report: GuardReport): string[] {
  return [...new Set(report.violations.map((v) => v.rule))].sort();
}

describe('the pre-sign guard, against the simulator', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  let vault: string;

  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
    vault = (await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners[0]!;
  });
  afterAll(async () => {
    await sim.close();
  });

  /** The price feed as the keeper's market snapshot holds it. */
  async function market(overrides: Record<string, number> = {}): Promise<MarketData> {
    const ids = [SOL, USDC, BONK];
    const prices = await jup.price.getPrices({ ids });
    return {
      at: Date.now(),
      prices: Object.fromEntries(ids.map((m) => [m, { usd: overrides[m] ?? prices[m]!.usdPrice, decimals: prices[m]!.decimals, change24h: null }])),
      tokens: {},
    };
  }

  /** The keeper's own policy for an intent (guardPolicyFor), with the simulator's vault as declared co-signer. */
  async function policyOf(wallet: Keypair, intent: Intent, o: { prices?: Record<string, number> } = {}): Promise<GuardPolicy> {
    return guardPolicyFor(intent, {}, {
      wallet: wallet.publicKey,
      risk: { maxSlippageBps: 300, maxPriorityFeeLamports: CAP, allowToken2022Mints: [] },
      coSigners: [vault],
      market: await market(o.prices),
      maxPriceAgeMs: 60_000,
      now: Date.now(),
    });
  }

  /** A policy for a transaction that should move nothing (a cancel's). */
  function nothing(wallet: Keypair, extra: Partial<GuardPolicy> = {}): GuardPolicy {
    return { wallet: wallet.publicKey, area: 'trigger', allowedPrograms: allowedProgramsFor('trigger'), coSigners: new Set([vault]), maxPriorityFeeLamports: CAP, spend: { kind: 'nothing' }, mayUnwrapSol: true, allowToken2022Mints: new Set(), ...extra };
  }

  const swap = (inputMint: string, outputMint: string, amount: bigint, via: 'ultra' | 'metis' = 'ultra'): Intent => ({ kind: 'swap', via, inputMint, outputMint, amount });

  async function ultraOrder(wallet: Keypair, inputMint: string, outputMint: string, amount: bigint) {
    const order = await jup.ultra.getOrder({ inputMint, outputMint, amount, taker: wallet.publicKey.toBase58() });
    return { order, tx: VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64')) };
  }

  async function txOf(payer: PublicKey, instructions: TransactionInstruction[], tables: AddressLookupTableAccount[] = []): Promise<VersionedTransaction> {
    const { blockhash } = await rpc.connection.getLatestBlockhash();
    return new VersionedTransaction(new TransactionMessage({ payerKey: payer, recentBlockhash: blockhash, instructions }).compileToV0Message(tables));
  }

  /** An Ultra order with extra instructions appended (what a venue that lies would hand out). */
  async function attacked(wallet: Keypair, inputMint: string, outputMint: string, amount: bigint, extra: TransactionInstruction[]): Promise<VersionedTransaction> {
    const { tx } = await ultraOrder(wallet, inputMint, outputMint, amount);
    const msg = TransactionMessage.decompile(tx.message);
    msg.instructions.push(...extra);
    return new VersionedTransaction(msg.compileToV0Message());
  }

  describe('when an order is what the intent asked for', () => {
    it('passes a SOL to USDC order, reporting the co-signer and the wallet changes', async () => {
      const wallet = await fundedWallet(sim, 2_000_000_000n);
      const { order, tx } = await ultraOrder(wallet, SOL, USDC, 500_000_000n);
      const report = await guardTransaction(tx, await policyOf(wallet, swap(SOL, USDC, 500_000_000n)), rpc);
      expect(report.violations).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.simulated).toBe(true);
      expect(report.feePayer).toBe(wallet.publicKey.toBase58());
      expect(report.signers).toEqual([wallet.publicKey.toBase58(), vault]);
      expect(report.changes.tokens).toEqual([{ mint: USDC, delta: order.outAmount }]);
      // The input and the fee leave; the new USDC account's rent stays the wallet's.
      expect(report.changes.lamports).toBe(-(500_000_000n + report.feeLamports!));
      expect(() => assertGuardPassed(report)).not.toThrow();
    });

    it('passes a USDC to SOL order whose only outflow is the input', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const { order, tx } = await ultraOrder(wallet, USDC, SOL, 2_000_000n);
      const report = await guardTransaction(tx, await policyOf(wallet, swap(USDC, SOL, 2_000_000n)), rpc);
      expect(report.violations).toEqual([]);
      expect(report.changes.tokens).toEqual([{ mint: USDC, delta: -2_000_000n }]);
      expect(report.changes.lamports).toBe(order.outAmount - report.feeLamports!);
    });

    it('passes a Metis swap (quote + swap) of the same pair', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const { raw } = await jup.swap.getQuote({ inputMint: USDC, outputMint: SOL, amount: 3_000_000n, slippageBps: 50 });
      const built = await jup.swap.buildSwap({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: raw });
      const tx = VersionedTransaction.deserialize(Buffer.from(built.swapTransaction, 'base64'));
      const report = await guardTransaction(tx, await policyOf(wallet, swap(USDC, SOL, 3_000_000n, 'metis')), rpc);
      expect(report.violations).toEqual([]);
    });
  });

  describe('when the venue lies about the swap', () => {
    it('refuses an output worth less than the feed says, whatever the response claims', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const { tx } = await ultraOrder(wallet, USDC, SOL, 2_000_000n);
      // The feed values USDC 5 % above what the venue pays for it: beyond the 3 % slippage bound.
      const feed = await market();
      const report = await guardTransaction(tx, await policyOf(wallet, swap(USDC, SOL, 2_000_000n), { prices: { [USDC]: feed.prices[USDC]!.usd * 1.05 } }), rpc);
      expect(rules(report)).toEqual(['inflow-short']);
    });

    it('refuses an order in another output mint', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const { tx } = await ultraOrder(wallet, USDC, BONK, 2_000_000n);
      const report = await guardTransaction(tx, await policyOf(wallet, swap(USDC, SOL, 2_000_000n)), rpc);
      expect(rules(report)).toEqual(['output-mint']);
    });

    it('refuses the hostile-order fault for the SOL and the extra input tokens it sends to a stranger', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      await control(sim, '/faults', { kind: 'hostile-order', count: 1 });
      const { tx } = await ultraOrder(wallet, USDC, SOL, 2_000_000n);
      const report = await guardTransaction(tx, await policyOf(wallet, swap(USDC, SOL, 2_000_000n)), rpc);
      expect(rules(report)).toEqual(expect.arrayContaining(['destination', 'sol-outflow', 'token-outflow']));
      const refusal = new GuardRefusal(report.violations);
      expect(refusal.code).toBe('GUARD_REFUSED');
      expect(refusal.action).toBe('abandon');
      expect(() => assertGuardPassed(report)).toThrow(GuardRefusal);
    });

    it('refuses a single lamport to a stranger inside a swap paying out SOL', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const stranger = (await fundedWallet(sim, 10_000_000n)).publicKey;
      const tx = await attacked(wallet, USDC, SOL, 2_000_000n, [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: stranger, lamports: 1 })]);
      const report = await guardTransaction(tx, await policyOf(wallet, swap(USDC, SOL, 2_000_000n)), rpc);
      expect(rules(report)).toEqual(['destination']);
      expect(report.violations[0]!.message).toContain(stranger.toBase58());
    });

    it('refuses a transaction that needs a stranger\'s signature', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const stranger = Keypair.generate().publicKey;
      const memo = new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [{ pubkey: stranger, isSigner: true, isWritable: false }], data: Buffer.from('x') });
      const tx = await attacked(wallet, SOL, USDC, 10_000_000n, [memo]);
      const report = await guardTransaction(tx, await policyOf(wallet, swap(SOL, USDC, 10_000_000n)), rpc);
      expect(rules(report)).toEqual(['signer']);
    });

    it('refuses a priority fee above the cap before anything else, and counts tips to Jito towards it', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const price = ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000_000 });
      const expensive = await txOf(wallet.publicKey, [ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }), price]);
      expect(rules(await guardTransaction(expensive, nothing(wallet), rpc))).toContain('priority-fee');
      const tip = [...TIP_ACCOUNTS][0]!;
      await airdrop(sim, tip, SOL, 1_000_000_000n);
      const small = await txOf(wallet.publicKey, [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: new PublicKey(tip), lamports: 10_000 })]);
      expect((await guardTransaction(small, nothing(wallet), rpc)).violations).toEqual([]);
      const big = await txOf(wallet.publicKey, [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: new PublicKey(tip), lamports: Number(CAP) + 1 })]);
      expect(rules(await guardTransaction(big, nothing(wallet), rpc))).toEqual(['priority-fee']);
    });
  });

  describe('when the transaction touches the wallet\'s own accounts', () => {
    it('refuses Allocate and Assign on the wallet (it could never pay a fee again)', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      for (const ix of [SystemProgram.allocate({ accountPubkey: wallet.publicKey, space: 8 }), SystemProgram.assign({ accountPubkey: wallet.publicKey, programId: new PublicKey(PROGRAM_IDS.memoV2) })]) {
        const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), nothing(wallet), rpc);
        expect(rules(report)).toEqual(['wallet-account']);
      }
    });

    it('refuses a delegate, a new owner and a new close authority on a wallet token account', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const ata = getAssociatedTokenAddressSync(USDC_MINT, wallet.publicKey);
      const stranger = Keypair.generate().publicKey;
      const approve = await guardTransaction(await txOf(wallet.publicKey, [createApproveInstruction(ata, stranger, wallet.publicKey, 10_000_000n)]), nothing(wallet), rpc);
      expect(rules(approve)).toEqual(['token-account']);
      const owner = await guardTransaction(await txOf(wallet.publicKey, [createSetAuthorityInstruction(ata, wallet.publicKey, AuthorityType.AccountOwner, stranger)]), nothing(wallet), rpc);
      // Giving the account away gives its tokens and its rent away too.
      expect(rules(owner)).toEqual(['sol-outflow', 'token-account', 'token-outflow']);
      const close = await guardTransaction(await txOf(wallet.publicKey, [createSetAuthorityInstruction(ata, wallet.publicKey, AuthorityType.CloseAccount, stranger)]), nothing(wallet), rpc);
      expect(rules(close)).toEqual(['token-account']);
    });

    it('refuses closing a wallet token account with its rent going to a stranger, and one the intent does not close', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const stranger = Keypair.generate().publicKey;
      const ata = getAssociatedTokenAddressSync(new PublicKey(BONK), wallet.publicKey);
      const create = createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, ata, wallet.publicKey, new PublicKey(BONK));
      const toStranger = await guardTransaction(await txOf(wallet.publicKey, [create, createCloseAccountInstruction(ata, stranger, wallet.publicKey)]), nothing(wallet), rpc);
      expect(rules(toStranger)).toEqual(expect.arrayContaining(['close-account']));
      const setup = await txOf(wallet.publicKey, [create]);
      setup.sign([wallet]);
      await rpc.send(setup.serialize());
      const existing = await guardTransaction(await txOf(wallet.publicKey, [createCloseAccountInstruction(ata, wallet.publicKey, wallet.publicKey)]), nothing(wallet), rpc);
      expect(rules(existing)).toEqual(['close-account']);
    });

    it('refuses any SOL to a stranger, down to one lamport, and passes a fee-only transaction', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const stranger = (await fundedWallet(sim, 10_000_000n)).publicKey;
      const pay = (lamports: number) => SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: stranger, lamports });
      // The one lamport is also one more than the fees: both the destination and the SOL balance say so.
      expect(rules(await guardTransaction(await txOf(wallet.publicKey, [pay(1)]), nothing(wallet), rpc))).toEqual(['destination', 'sol-outflow']);
      expect(rules(await guardTransaction(await txOf(wallet.publicKey, [pay(300_000_000)]), nothing(wallet), rpc))).toEqual(['destination', 'sol-outflow']);
      const memo = new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [], data: Buffer.from('ok') });
      expect((await guardTransaction(await txOf(wallet.publicKey, [memo]), nothing(wallet), rpc)).violations).toEqual([]);
    });

    it('refuses a token transfer of a mint the intent does not spend', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
      const ata = getAssociatedTokenAddressSync(USDC_MINT, wallet.publicKey);
      const other = await fundedWallet(sim, 0n, [[USDC, 1n]]);
      const ix = createTransferCheckedInstruction(ata, USDC_MINT, getAssociatedTokenAddressSync(USDC_MINT, other.publicKey), wallet.publicKey, 1n, 6);
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), await policyOf(wallet, swap(SOL, USDC, 1_000n)), rpc);
      expect(rules(report)).toEqual(expect.arrayContaining(['destination', 'token-outflow']));
    });
  });

  describe('when a Token-2022 mint lets a stranger move the wallet\'s tokens', () => {
    it('refuses a mint with a permanent delegate unless the config allows it', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const mint = Keypair.generate();
      const space = getMintLen([ExtensionType.PermanentDelegate]);
      const ata = getAssociatedTokenAddressSync(mint.publicKey, wallet.publicKey, false, TOKEN_2022_PROGRAM_ID);
      const setup = await txOf(wallet.publicKey, [
        SystemProgram.createAccount({ fromPubkey: wallet.publicKey, newAccountPubkey: mint.publicKey, lamports: Number(await rpc.connection.getMinimumBalanceForRentExemption(space)), space, programId: TOKEN_2022_PROGRAM_ID }),
        createInitializePermanentDelegateInstruction(mint.publicKey, Keypair.generate().publicKey, TOKEN_2022_PROGRAM_ID),
        createInitializeMint2Instruction(mint.publicKey, 6, wallet.publicKey, null, TOKEN_2022_PROGRAM_ID),
        createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, ata, wallet.publicKey, mint.publicKey, TOKEN_2022_PROGRAM_ID),
        createMintToInstruction(mint.publicKey, ata, wallet.publicKey, 1_000n, [], TOKEN_2022_PROGRAM_ID),
      ]);
      setup.sign([wallet, mint]);
      await rpc.send(setup.serialize());
      const other = await fundedWallet(sim, 10_000_000n);
      const theirs = getAssociatedTokenAddressSync(mint.publicKey, other.publicKey, false, TOKEN_2022_PROGRAM_ID);
      const pay = await txOf(wallet.publicKey, [
        createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, theirs, other.publicKey, mint.publicKey, TOKEN_2022_PROGRAM_ID),
        createTransferCheckedInstruction(ata, mint.publicKey, theirs, wallet.publicKey, 10n, 6, [], TOKEN_2022_PROGRAM_ID),
      ]);
      const sells = { ...nothing(wallet), spend: { kind: 'counterparty' as const, mint: mint.publicKey.toBase58(), max: 10n } };
      // The rent of the counterparty's account is the wallet's money going to a stranger too (an account creation
      // the intent does not name), and the tokens go to a stranger: only those are left once the mint is allowed.
      const refused = await guardTransaction(pay, sells, rpc);
      expect(rules(refused)).toEqual(['created-account', 'destination', 'sol-outflow', 'token-extension']);
      expect(refused.violations.find((v) => v.rule === 'token-extension')!.message).toContain('permanent delegate');
      const allowed = await guardTransaction(pay, { ...sells, allowToken2022Mints: new Set([mint.publicKey.toBase58()]) }, rpc);
      expect(rules(allowed)).toEqual(['created-account', 'destination', 'sol-outflow']);
    });
  });

  describe('when the transaction is not the wallet\'s to pay for, or not for this area', () => {
    it('refuses another fee payer', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const other = await fundedWallet(sim, 1_000_000_000n);
      const memo = new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [], data: Buffer.from('hi') });
      const report = await guardTransaction(await txOf(other.publicKey, [memo]), nothing(wallet), rpc);
      expect(rules(report)).toEqual(expect.arrayContaining(['fee-payer']));
      expect(report.feePayer).toBe(other.publicKey.toBase58());
    });

    it('refuses a random program, whose simulation also fails', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const stranger = Keypair.generate().publicKey;
      const ix = new TransactionInstruction({ programId: stranger, keys: [{ pubkey: wallet.publicKey, isSigner: true, isWritable: true }], data: Buffer.alloc(0) });
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), nothing(wallet), rpc);
      expect(rules(report)).toEqual(['program-not-allowed', 'simulation-failed']);
      expect(report.simulated).toBe(false);
    });

    it('refuses a durable-nonce transaction, which would never expire', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const ix = SystemProgram.nonceAdvance({ noncePubkey: Keypair.generate().publicKey, authorizedPubkey: wallet.publicKey });
      const report = await guardTransaction(await txOf(wallet.publicKey, [ix]), nothing(wallet), rpc);
      expect(rules(report)).toContain('durable-nonce');
    });

    it('refuses a message that cannot be decoded, without simulating it', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const tx = await txOf(wallet.publicKey, [new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [], data: Buffer.from('m') })]);
      tx.message.header.numRequiredSignatures = 9;
      const report = await guardTransaction(tx, nothing(wallet), rpc);
      expect(rules(report)).toEqual(['malformed']);
      expect(report.simulated).toBe(false);
    });
  });

  describe('when the transaction is a legacy one or uses lookup tables', () => {
    it('decodes and checks a legacy transaction like a v0 one', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const { blockhash } = await rpc.connection.getLatestBlockhash();
      const pay = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 2_000_000 });
      const tx = new VersionedTransaction(Message.compile({ payerKey: wallet.publicKey, recentBlockhash: blockhash, instructions: [pay] }));
      expect(tx.version).toBe('legacy');
      const report = await guardTransaction(tx, nothing(wallet), rpc);
      expect(rules(report)).toEqual(['destination', 'sol-outflow']);
      expect(report.changes.lamports).toBe(-2_005_000n);
    });

    it('resolves a table through RPC and follows a transfer to an address it loads', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const dest = (await fundedWallet(sim, 10_000_000n)).publicKey;
      const slotHashes = await rpc.connection.getAccountInfo(new PublicKey('SysvarS1otHashes111111111111111111111111111'));
      const recentSlot = Number(slotHashes!.data.readBigUInt64LE(8));
      const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: wallet.publicKey, payer: wallet.publicKey, recentSlot });
      const extend = AddressLookupTableProgram.extendLookupTable({ authority: wallet.publicKey, payer: wallet.publicKey, lookupTable: table, addresses: [dest] });
      const setup = await txOf(wallet.publicKey, [create, extend]);
      setup.sign([wallet]);
      await rpc.send(setup.serialize());
      await control(sim, '/clock', { advanceMs: 2_000 }); // extended addresses are usable from the next slot
      const alt = (await rpc.connection.getAddressLookupTable(table)).value!;
      const tx = await txOf(wallet.publicKey, [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: dest, lamports: 1 })], [alt]);
      expect(tx.message.addressTableLookups).toHaveLength(1);
      const report = await guardTransaction(tx, nothing(wallet), rpc);
      expect(rules(report)).toEqual(['destination', 'sol-outflow']);
      expect(report.violations[0]!.message).toContain(dest.toBase58());
    });

    it('refuses a transaction whose lookup table does not exist', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const dest = Keypair.generate().publicKey;
      const ghost = new AddressLookupTableAccount({
        key: Keypair.generate().publicKey,
        state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [dest] },
      });
      const pay = SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: dest, lamports: 1_000 });
      const report = await guardTransaction(await txOf(wallet.publicKey, [pay], [ghost]), nothing(wallet), rpc);
      expect(rules(report)).toEqual(['lookup-table']);
      expect(report.simulated).toBe(false);
    });
  });

  describe('when the check cannot run', () => {
    it('throws a retryable GuardUnavailable when the RPC node cannot be reached', async () => {
      const wallet = Keypair.generate();
      const dead = new SolanaRpc('http://127.0.0.1:9/rpc');
      const tx = await txOf(wallet.publicKey, [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 })]);
      const err = await guardTransaction(tx, nothing(wallet), dead).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GuardUnavailable);
      expect((err as GuardUnavailable).action).toBe('retry');
      expect((err as GuardUnavailable).reason).toBe('rpc');
    });

    it('does not refuse a transaction whose blockhash the node does not know yet (it lags the venue)', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const msg = new TransactionMessage({ payerKey: wallet.publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58(), instructions: [new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [], data: Buffer.from('m') })] });
      const err = await guardTransaction(new VersionedTransaction(msg.compileToV0Message()), nothing(wallet), rpc).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GuardUnavailable);
      expect((err as GuardUnavailable).reason).toBe('blockhash-not-found');
    });

    it('checks again instead of deciding when another transaction moves the wallet between its reads', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      // A real transfer to the wallet lands right after the simulation, before the second read of the same batch:
      // the before/after states are no longer one slot's. `moves` rounds in a row are moved.
      class Busy extends SolanaRpc {
        rounds = 0;
        constructor(
          url: string,
          private readonly moves: number,
        ) {
          super(url);
        }
        override async batch(calls: Parameters<SolanaRpc['batch']>[0]) {
          const at = calls.findIndex((c) => c.method === 'simulateTransaction');
          if (at < 0 || at === calls.length - 1) return super.batch(calls);
          this.rounds += 1;
          const first = await super.batch(calls.slice(0, at + 1));
          if (this.rounds <= this.moves) await airdrop(sim, wallet, SOL, 1_000n);
          return [...first, ...(await super.batch(calls.slice(at + 1)))];
        }
      }
      const memo = new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [], data: Buffer.from('m') });
      const always = new Busy(`${sim.url}/rpc`, Infinity);
      const err = await guardTransaction(await txOf(wallet.publicKey, [memo]), nothing(wallet), always).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GuardUnavailable);
      expect((err as GuardUnavailable).reason).toBe('state-moved');
      expect(always.rounds, 'a moved wallet is checked again at once, a bounded number of times').toBe(3);
      // Moved once: the next round sees one slot's states and decides.
      const once = new Busy(`${sim.url}/rpc`, 1);
      const report = await guardTransaction(await txOf(wallet.publicKey, [memo]), nothing(wallet), once);
      expect(report.violations).toEqual([]);
      expect(report.simulated).toBe(true);
      expect(once.rounds).toBe(2);
    });

    it('does not decide on a node that returns no inner instructions or no post-simulation accounts', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const memo = new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [], data: Buffer.from('m') });
      const tx = await txOf(wallet.publicKey, [memo]);
      for (const [strip, reason] of [['innerInstructions', 'no-inner-instructions'], ['accounts', 'no-post-state']] as const) {
        const proxy = await stripping(`${sim.url}/rpc`, strip);
        try {
          const err = await guardTransaction(tx, nothing(wallet), new SolanaRpc(proxy.url)).catch((e: unknown) => e);
          expect(err, strip).toBeInstanceOf(GuardUnavailable);
          expect((err as GuardUnavailable).reason).toBe(reason);
        } finally {
          await proxy.close();
        }
      }
    });
  });
});

/** An RPC proxy that removes one field from simulateTransaction results (an older or broken node). */
async function stripping(target: string, field: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => {
        // One answer or a batch's: strip the field from every simulation (a value with `err`) in it.
        type Answer = { result?: { value?: Record<string, unknown> } };
        const json = (await r.json()) as Answer | Answer[];
        for (const one of Array.isArray(json) ? json : [json]) {
          const value = one.result?.value;
          if (body.includes('"simulateTransaction"') && value && !Array.isArray(value) && 'err' in value) delete value[field];
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
