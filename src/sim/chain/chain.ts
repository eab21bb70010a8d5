import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { Account as SvmAccount, Clock as SvmClock, FailedTransactionMetadata, LiteSvm } from 'litesvm/dist/internal.js';
import { PublicKey, TransactionMessage, VersionedTransaction, type AccountInfo, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import { ACCOUNT_SIZE, MINT_SIZE } from '@solana/spl-token';
import type { SimClock } from '../clock.js';
import { U64_MAX } from '../../lib/amounts.js';
import { decodeTokenAccount, feeOf, firstSignature, isTokenProgram, LAMPORTS_PER_SIGNATURE, mintData, tokenAccountData, type MintOptions } from './accounts.js';
import { cosign, verifyEd25519 } from './ed25519.js';
import { keyOf } from './keys.js';
import { accountKeysOf, innerInstructionsBefore, innerInstructionsOf, loadedAddressesOf, NO_LOADED_ADDRESSES, returnDataOf } from './meta.js';
import { landedDespiteError, ranDespiteError, txErrorJson, type TxErrorJson } from './txErrors.js';
import type { ChainEvent, LandedTransaction, LedgerEntry, SignatureStatus, SimulationResult, SubmitOptions, SubmitOutcome, TokenBalance } from './types.js';
import { BoundedCache } from '../boundedCache.js';

export * from './types.js';
export { feeOf, firstSignature, LAMPORTS_PER_SIGNATURE } from './accounts.js';

/** Blockhashes stay valid for this many blocks, as on mainnet. */
export const BLOCKHASH_VALIDITY = 150n;
/** A landed transaction is `finalized` this many slots after it landed. */
export const FINALITY_SLOTS = 32n;
/** Lamports in LiteSVM's faucet (SOL airdrops come from it). */
const FAUCET_LAMPORTS = 10_000_000_000n * 1_000_000_000n;
/** Entries of the SlotHashes sysvar kept in step with the clock (mainnet keeps 512). */
const SLOT_HASHES_KEPT = 512n;

/**
 * The simulator's chain: a LiteSVM ledger of real accounts and programs, with the simulator's own blockhash window
 * (LiteSVM accepts only its latest blockhash), a signature index for status queries and replay protection, a
 * token-account index by owner, and the settlement ledger.
 */
export class SimChain {
  /** LiteSVM's native VM, driven with raw bytes (its kit-based wrapper is not needed here). */
  private readonly svm: LiteSvm;
  readonly clock: SimClock;
  /** Mint and treasury authority of every simulator mint; pays for airdrops. */
  readonly authority: Keypair;
  private readonly seed: string;
  private readonly statuses = new Map<string, SignatureStatus>();
  private readonly tokenAccountsByOwner = new Map<string, Set<string>>();
  private slotHashesAt = -1n;
  /** The slot and unix time last written to the VM's Clock sysvar (undefined: write it again). */
  private clockAt: { slot: bigint; unix: bigint } | undefined;
  private readonly blockhashes = new BoundedCache<bigint, string>(4_096);
  private readonly listeners = new Set<(event: ChainEvent) => void>();
  readonly ledger: LedgerEntry[] = [];

  constructor(options: { clock: SimClock; seed: number | string; authority: Keypair }) {
    this.clock = options.clock;
    this.seed = String(options.seed);
    this.authority = options.authority;
    this.svm = new LiteSvm();
    this.svm.setLamports(FAUCET_LAMPORTS);
    // The simulator keeps its own 151-blockhash window and signature index (LiteSVM accepts only its latest
    // blockhash); so the VM's own checks and history are off and a duplicate never reaches it.
    this.svm.setBlockhashCheck(false);
    this.svm.setTransactionHistory(0n);
    this.airdropLamports(this.authority.publicKey, 1_000_000n * 1_000_000_000n);
  }

  /** The blockhash of a slot: deterministic for the seed (memoised: validity checks walk 151 of them). */
  blockhashAt(slot: bigint): string {
    return this.blockhashes.getOr(slot, () => bs58.encode(createHash('sha256').update(`jup-keeper-sim:${this.seed}:blockhash:${slot}`).digest()));
  }

  /** The latest blockhash and the last block height at which a transaction using it can land. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint; slot: bigint } {
    const slot = this.clock.slot();
    return { blockhash: this.blockhashAt(slot), lastValidBlockHeight: this.clock.blockHeight() + BLOCKHASH_VALIDITY, slot };
  }

  /** Whether a blockhash is one of the last 151 and so still accepted. */
  isBlockhashValid(blockhash: string): boolean {
    const slot = this.clock.slot();
    for (let s = slot; s >= slot - BLOCKHASH_VALIDITY && s >= 0n; s -= 1n) {
      if (this.blockhashAt(s) === blockhash) return true;
    }
    return false;
  }

  /** Builds an unsigned v0 transaction with the current blockhash. */
  buildTransaction(payer: PublicKey, instructions: TransactionInstruction[]): { tx: VersionedTransaction; lastValidBlockHeight: bigint } {
    const { blockhash, lastValidBlockHeight } = this.latestBlockhash();
    const message = new TransactionMessage({ payerKey: payer, recentBlockhash: blockhash, instructions }).compileToV0Message();
    return { tx: new VersionedTransaction(message), lastValidBlockHeight };
  }

  /** Status of a signature, with its confirmation level now. */
  signatureStatus(signature: string): (SignatureStatus & { confirmationStatus: 'confirmed' | 'finalized'; confirmations: number | null }) | undefined {
    const s = this.statuses.get(signature);
    if (!s) return undefined;
    const age = this.clock.slot() - s.slot;
    const finalized = age >= FINALITY_SLOTS;
    return { ...s, confirmationStatus: finalized ? 'finalized' : 'confirmed', confirmations: finalized ? null : Number(age) };
  }

  /**
   * Verifies, co-signs and settles a transaction. The signature index makes a repeated transaction a `duplicate`
   * before it reaches LiteSVM; an expired blockhash is `rejected` as BlockhashNotFound.
   */
  submit(tx: VersionedTransaction, options: SubmitOptions = {}): SubmitOutcome {
    const signature = firstSignature(tx);
    const known = this.statuses.get(signature);
    if (known) return { kind: 'duplicate', signature, status: known };
    if (!this.isBlockhashValid(tx.message.recentBlockhash)) return { kind: 'rejected', signature, err: 'BlockhashNotFound', logs: [] };
    for (const c of options.cosigners ?? []) cosign(tx, c, options.message);
    const finalSignature = firstSignature(tx);
    const slot = this.syncClock();
    const loadedAddresses = loadedAddressesOf(tx, (k) => this.account(k));
    const accounts = accountKeysOf(tx, loadedAddresses);
    const invoked = invokedIndexes(tx);
    const preBalances = accounts.map((k) => this.lamports(k));
    const preTokenBalances = this.tokenBalances(accounts, invoked);
    const wire = options.message ? transactionBytes(tx, options.message) : tx.serialize();
    const result = this.svm.sendVersionedTransaction(wire);
    const landed = (unitsConsumed: bigint, innerInstructions: LandedTransaction['innerInstructions']): LandedTransaction => ({
      tx,
      wire,
      fee: feeOf(tx),
      accounts,
      loadedAddresses,
      innerInstructions,
      preBalances,
      postBalances: accounts.map((k) => this.lamports(k)),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(accounts, invoked),
      unitsConsumed,
    });
    if (result instanceof FailedTransactionMetadata) {
      const err = txErrorJson(result);
      const logs = result.meta().logs();
      if (!landedDespiteError(err)) return { kind: 'rejected', signature: finalSignature, err, logs };
      const ran = ranDespiteError(err) ? innerInstructionsOf(result.meta()) : null;
      const failed = landed(result.meta().computeUnitsConsumed(), ran);
      this.statuses.set(finalSignature, { slot, err, logs, landed: failed });
      this.indexTokenAccounts(accounts, failed.postTokenBalances);
      this.emit({ signature: finalSignature, slot });
      return { kind: 'landed-failed', signature: finalSignature, slot, err, logs };
    }
    const logs = result.logs();
    const done = landed(result.computeUnitsConsumed(), innerInstructionsOf(result));
    this.statuses.set(finalSignature, { slot, err: null, logs, landed: done });
    this.indexTokenAccounts(accounts, done.postTokenBalances);
    if (options.record) this.ledger.push({ ...options.record, signature: finalSignature, slot });
    options.onLanded?.(finalSignature, slot);
    this.emit({ signature: finalSignature, slot });
    return { kind: 'landed', signature: finalSignature, slot, logs };
  }

  /**
   * Records a transaction as landed but failed with a program error, as a validator would: the fee payer's fee is
   * charged and the signature gets a status with the error, but no instruction takes effect. Used where the
   * simulator's market maker refuses a stale price (Jupiter program error 6001).
   */
  landAsFailed(tx: VersionedTransaction, instructionIndex: number, customCode: number): SubmitOutcome {
    const signature = firstSignature(tx);
    const known = this.statuses.get(signature);
    if (known) return { kind: 'duplicate', signature, status: known };
    const payer = tx.message.staticAccountKeys[0]!;
    const account = this.account(payer);
    const fee = feeOf(tx);
    if (!account || BigInt(account.lamports) < fee) return { kind: 'rejected', signature, err: 'InsufficientFundsForFee', logs: [] };
    // What ran before the refused instruction, as a validator records it for a transaction that failed there.
    const ran = this.simulate(tx, false);
    const innerInstructions = innerInstructionsBefore(ran.innerInstructions ?? [], instructionIndex);
    const accounts = accountKeysOf(tx, ran.loadedAddresses);
    const preBalances = accounts.map((k) => this.lamports(k));
    this.setAccount(payer, { ...account, lamports: Number(BigInt(account.lamports) - fee) });
    const slot = this.syncClock();
    const err: TxErrorJson = { InstructionError: [instructionIndex, { Custom: customCode }] };
    const logs = [`Program log: AnchorError occurred. Error Code: SlippageToleranceExceeded. Error Number: ${customCode}.`];
    const tokens = this.tokenBalances(accounts, invokedIndexes(tx));
    const landed: LandedTransaction = {
      tx,
      fee,
      accounts,
      loadedAddresses: ran.loadedAddresses,
      innerInstructions,
      preBalances,
      postBalances: accounts.map((k) => this.lamports(k)),
      preTokenBalances: tokens,
      postTokenBalances: tokens,
      unitsConsumed: 0n,
    };
    this.statuses.set(signature, { slot, err, logs, landed });
    this.emit({ signature, slot });
    return { kind: 'landed-failed', signature, slot, err, logs };
  }

  /**
   * Simulates without committing. With `sigVerify: false`, unsigned transactions are accepted. Returns the error
   * (if any), logs, compute units, inner instructions, return data and the post-simulation state of the accounts
   * the transaction touched (the fee payer with the fee deducted, as Agave's loaded accounts have it).
   */
  simulate(tx: VersionedTransaction, sigVerify: boolean): SimulationResult {
    this.syncClock();
    const loadedAddresses = loadedAddressesOf(tx, (k) => this.account(k));
    if (!sigVerify) this.svm.setSigverify(false);
    try {
      const r = this.svm.simulateVersionedTransaction(tx.serialize());
      if (r instanceof FailedTransactionMetadata) {
        const meta = r.meta();
        const err = txErrorJson(r);
        const ran = ranDespiteError(err);
        return {
          err,
          logs: meta.logs(),
          unitsConsumed: meta.computeUnitsConsumed(),
          postAccounts: [],
          innerInstructions: ran ? innerInstructionsOf(meta) : null,
          loadedAddresses,
          returnData: ran ? returnDataOf(meta) : null,
        };
      }
      const meta = r.meta();
      return {
        err: null,
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        postAccounts: r.postAccounts().map((a) => ({ address: keyOf(a.address), account: toAccountInfo(a.account()) })),
        innerInstructions: innerInstructionsOf(meta),
        loadedAddresses,
        returnData: returnDataOf(meta),
      };
    } finally {
      if (!sigVerify) this.svm.setSigverify(true);
    }
  }

  /**
   * Whether every required signature of a transaction by the given signer is present and valid. `message` is the
   * transaction's message serialized, when the caller has it.
   */
  hasValidSignature(tx: VersionedTransaction, signer: PublicKey, message?: Uint8Array): boolean {
    const keys = tx.message.staticAccountKeys;
    const idx = keys.findIndex((k) => k.equals(signer));
    if (idx < 0 || idx >= tx.message.header.numRequiredSignatures) return false;
    const sig = tx.signatures[idx];
    return sig !== undefined && verifyEd25519(signer.toBytes(), message ?? tx.message.serialize(), sig);
  }

  /** Whether every required signature except those of `except` is present and valid (`message`: as hasValidSignature). */
  signaturesValid(tx: VersionedTransaction, except: readonly PublicKey[] = [], message?: Uint8Array): boolean {
    const n = tx.message.header.numRequiredSignatures;
    const bytes = message ?? tx.message.serialize();
    for (let i = 0; i < n; i += 1) {
      const key = tx.message.staticAccountKeys[i]!;
      if (except.some((e) => e.equals(key))) continue;
      const sig = tx.signatures[i];
      if (!sig || !verifyEd25519(key.toBytes(), bytes, sig)) return false;
    }
    return true;
  }

  /** SOL balance in lamports (0 for a missing account). */
  lamports(address: PublicKey): bigint {
    return this.svm.getBalance(address.toBytes()) ?? 0n;
  }

  /** Raw account, or null. */
  account(address: PublicKey): AccountInfo<Uint8Array> | null {
    const a = this.svm.getAccount(address.toBytes());
    return a ? toAccountInfo(a) : null;
  }

  /** Writes an account directly (genesis and control endpoints only; never during normal settlement). */
  setAccount(address: PublicKey, account: AccountInfo<Uint8Array>): void {
    // rentEpoch is u64::MAX for rent-exempt accounts; as a JS number it rounds up past the u64 range.
    const rentEpoch = BigInt(account.rentEpoch ?? 0);
    this.svm.setAccount(address.toBytes(), new SvmAccount(BigInt(account.lamports), account.data, account.owner.toBytes(), account.executable, rentEpoch > U64_MAX ? U64_MAX : rentEpoch));
    this.clockAt = undefined;
    if (isTokenProgram(account.owner) && account.data.length >= ACCOUNT_SIZE) this.indexTokenAccount(address, account.data);
    this.emit({ signature: null, slot: this.clock.slot() });
  }

  /** Installs a program (SBF ELF bytes) at an address, executable from the next transaction. */
  addProgram(programId: PublicKey, elf: Uint8Array): void {
    this.svm.addProgram(programId.toBytes(), elf);
  }

  /** Creates a mint account at an address with the given authorities and supply. */
  createMint(address: PublicKey, options: MintOptions): void {
    const data = mintData(options);
    this.setAccount(address, {
      lamports: Number(this.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
      data,
      owner: new PublicKey(options.program),
      executable: false,
    });
  }

  /**
   * Creates (or overwrites) a token account holding `amount`, optionally with a delegate (an escrow the venue's
   * keeper may move out of) or as a native (wrapped SOL) account, whose lamports are its rent plus the amount.
   */
  createTokenAccount(address: PublicKey, options: { mint: PublicKey; owner: PublicKey; amount: bigint; program: string; delegate?: PublicKey; native?: boolean }): void {
    const data = tokenAccountData(options);
    const rent = this.svm.minimumBalanceForRentExemption(BigInt(ACCOUNT_SIZE));
    this.setAccount(address, {
      lamports: Number(rent + (options.native ? options.amount : 0n)),
      data,
      owner: new PublicKey(options.program),
      executable: false,
    });
  }

  /** Decoded token account at an address, or undefined when it is missing or not a token account. */
  tokenAccount(address: PublicKey): { mint: string; owner: string; amount: bigint; frozen: boolean; program: string } | undefined {
    const acc = this.account(address);
    return acc ? decodeTokenAccount(acc) : undefined;
  }

  /** Token accounts owned by a wallet (from the index kept as transactions settle), with their state now. */
  tokenAccountsOf(owner: string): Array<{ address: string; mint: string; amount: bigint; frozen: boolean; program: string }> {
    const out: Array<{ address: string; mint: string; amount: bigint; frozen: boolean; program: string }> = [];
    for (const address of this.tokenAccountsByOwner.get(owner) ?? []) {
      const acc = this.tokenAccount(new PublicKey(address));
      if (acc && acc.owner === owner) out.push({ address, mint: acc.mint, amount: acc.amount, frozen: acc.frozen, program: acc.program });
    }
    return out;
  }

  /** Minimum lamports for a rent-exempt account of `size` bytes. */
  rentExempt(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  /** Funds a wallet with SOL through LiteSVM's faucet transaction; returns the signature. */
  airdropLamports(address: PublicKey, lamports: bigint): string {
    const slot = this.syncClock();
    const before = this.lamports(address);
    const result = this.svm.airdrop(address.toBytes(), lamports);
    if (!result) throw new Error('the faucet airdrop failed');
    if (result instanceof FailedTransactionMetadata) throw new Error(`the faucet airdrop failed: ${JSON.stringify(txErrorJson(result))}`);
    const signature = bs58.encode(result.signature());
    const landed: LandedTransaction = {
      tx: undefined,
      fee: LAMPORTS_PER_SIGNATURE,
      accounts: [address],
      loadedAddresses: NO_LOADED_ADDRESSES,
      innerInstructions: innerInstructionsOf(result),
      preBalances: [before],
      postBalances: [this.lamports(address)],
      preTokenBalances: [],
      postTokenBalances: [],
      unitsConsumed: result.computeUnitsConsumed(),
    };
    this.statuses.set(signature, { slot, err: null, logs: result.logs(), landed });
    this.emit({ signature, slot });
    return signature;
  }

  /** Every signature with a status, oldest first (getSignaturesForAddress reads it newest first). */
  history(): ReadonlyMap<string, SignatureStatus> {
    return this.statuses;
  }

  /**
   * Calls `listener` after every change: a transaction landed (or landed failed), or an account was written
   * directly. Listeners run synchronously inside the change and must not throw. Returns the function that removes it.
   */
  onChange(listener: (event: ChainEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds a settled entry that did not come from `submit` (faucet airdrops). */
  recordLedger(entry: LedgerEntry): void {
    this.ledger.push(entry);
  }

  /**
   * The token accounts among a transaction's keys, with their balances now. The programs it invokes are skipped, as
   * Agave's collect_token_balances skips them: a program is never a token account, and reading one copies its whole
   * ELF out of the VM (the associated-token program's is 105 kB, read twice per swap).
   */
  private tokenBalances(keys: readonly PublicKey[], invoked: ReadonlySet<number>): TokenBalance[] {
    const out: TokenBalance[] = [];
    keys.forEach((key, accountIndex) => {
      if (invoked.has(accountIndex)) return;
      const t = this.tokenAccount(key);
      if (t) out.push({ accountIndex, mint: t.mint, owner: t.owner, programId: t.program, amount: t.amount });
    });
    return out;
  }

  private emit(event: ChainEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private syncClock(): bigint {
    const slot = this.clock.slot();
    const unix = BigInt(Math.floor(this.clock.now() / 1000));
    // Only this method writes the Clock (setAccount forgets what it wrote: it may write the sysvar's account), so
    // the same slot and second need no new write.
    if (this.clockAt?.slot !== slot || this.clockAt.unix !== unix) {
      this.svm.setClock(new SvmClock(slot, unix, slot / 432_000n, slot / 432_000n + 1n, unix));
      this.clockAt = { slot, unix };
    }
    if (slot !== this.slotHashesAt) {
      // The SlotHashes sysvar must agree with getSlot: programs (address lookup tables) check recent slots in it.
      const recent = [];
      for (let s = slot; s > slot - SLOT_HASHES_KEPT && s >= 0n; s -= 1n) recent.push({ slot: s, hash: this.blockhashAt(s) });
      this.svm.setSlotHashes(recent);
      this.slotHashesAt = slot;
    }
    return slot;
  }

  /**
   * Indexes the token accounts a transaction left behind, from its post token balances: the same accounts read once
   * (decodeTokenAccount accepts exactly what indexTokenAccount indexes, with the owner from the same bytes).
   */
  private indexTokenAccounts(keys: readonly PublicKey[], post: readonly TokenBalance[]): void {
    for (const b of post) this.indexOwner(b.owner, keys[b.accountIndex]!);
  }

  private indexTokenAccount(address: PublicKey, data: Uint8Array): void {
    // A Token-2022 mint with extensions is longer than an account; its account-type byte (1) tells them apart.
    if (data.length > ACCOUNT_SIZE && data[ACCOUNT_SIZE] === 1) return;
    this.indexOwner(new PublicKey(data.subarray(32, 64)).toBase58(), address);
  }

  private indexOwner(owner: string, address: PublicKey): void {
    let set = this.tokenAccountsByOwner.get(owner);
    if (!set) {
      set = new Set();
      this.tokenAccountsByOwner.set(owner, set);
    }
    set.add(address.toBase58());
  }
}

/**
 * A signed transaction's wire bytes from its serialized message, as web3.js's VersionedTransaction.serialize writes
 * them: the signature count (compact-u16), the 64-byte signatures, the message.
 */
export function transactionBytes(tx: VersionedTransaction, message: Uint8Array): Uint8Array {
  return Buffer.concat([Uint8Array.from(compactU16(tx.signatures.length)), ...tx.signatures, message]);
}

/** A length as the wire format writes it (compact-u16: seven bits a byte, low first, the high bit says more). */
export function compactU16(n: number): number[] {
  const out: number[] = [];
  for (let rest = n; ; ) {
    const low = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(low);
      return out;
    }
    out.push(low | 0x80);
  }
}

/** Indexes of the keys a transaction's top-level instructions invoke (its programs). */
function invokedIndexes(tx: VersionedTransaction): Set<number> {
  return new Set(tx.message.compiledInstructions.map((ix) => ix.programIdIndex));
}

function toAccountInfo(a: SvmAccount): AccountInfo<Uint8Array> {
  return { lamports: Number(a.lamports()), data: a.data(), owner: keyOf(a.owner()), executable: a.executable(), rentEpoch: Number(a.rentEpoch()) };
}

