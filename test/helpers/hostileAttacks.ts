// The attacks of the hostile venue (test/helpers/hostileVenue.ts): each rewrites a transaction the simulator built
// into one that still settles on the simulator (the vault keeps co-signing: its ticket's instructions are kept, or a
// ticket is registered for the changed payout) but moves the wallet's funds or rights somewhere the intent never
// asked for. The proxy edits the response fields around the transaction to match the lie.
import { createHash } from 'node:crypto';
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import {
  AuthorityType,
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import type { Venue } from '../../src/sim/venue.js';
import { tokenProgramId, type SimToken } from '../../src/sim/catalog.js';
import { instructionHash, type Ticket } from '../../src/sim/chain/tickets.js';
import { MEMO_PROGRAM_ID } from '../../src/sim/products/swapTx.js';
import type { ProductRule } from '../../src/solana/guardTypes.js';

/** The rule names of the pre-sign guard (issue 7, and the product rules of issue 10), as they appear in refusals. */
export type GuardRuleName =
  | 'destination'
  | 'sol-outflow'
  | 'token-outflow'
  | 'wallet-account'
  | 'token-account'
  | 'close-account'
  | 'priority-fee'
  | 'output-mint'
  | 'inflow-short'
  | 'signer'
  | 'fee-payer'
  | 'program-not-allowed'
  | 'durable-nonce'
  | 'simulation-failed'
  | 'malformed'
  | 'lookup-table'
  | 'token-extension'
  | ProductRule;

/** One way the venue lies. Amounts in base units (lamports for SOL). */
export type Attack =
  /** A SystemProgram transfer from the wallet to the stranger; the response's rent field grows to cover it. */
  | { kind: 'sol-transfer'; lamports: bigint }
  /** SystemProgram.allocate on the wallet: a wallet with data can never pay a fee again. */
  | { kind: 'allocate'; space?: number }
  /** SystemProgram.assign of the wallet to another program. */
  | { kind: 'assign'; programId?: string }
  /** SPL Approve of a wallet token account to the stranger (u64 max unless `amount`). */
  | { kind: 'approve'; amount?: bigint }
  /** SPL SetAuthority on a wallet token account: its owner, or its close authority, becomes the stranger. */
  | { kind: 'set-authority'; authority: 'owner' | 'close' }
  /**
   * SPL CloseAccount of a wallet token account with its rent going to the stranger: an existing empty one (the
   * given account, else any the wallet holds), or, when it has none or `create` is set, its ATA of an unused mint
   * created (the wallet paying the rent) and closed in the same transaction.
   */
  | { kind: 'close-account'; account?: string; create?: boolean }
  /** A compute-unit price that makes the priority fee `lamports` (default 25,000,000); the fee fields say so. */
  | { kind: 'priority-fee'; lamports?: bigint }
  /** An order into `mint` (default BONK) instead of the asked output; `claim: 'asked'` (default) hides it in the fields. */
  | { kind: 'output-mint'; mint?: string; claim?: 'asked' | 'actual' }
  /** The vault pays `bps` (default 500) below what the input is worth at the feed price; amounts lowered to match. */
  | { kind: 'inflow-short'; bps?: number }
  /** A memo that needs the stranger's signature: a required signer besides the wallet and the venue's co-signers. */
  | { kind: 'extra-signer' }
  /**
   * The wallet's payment is split: `cut` (default 1 base unit) of the intent's own input goes to the stranger
   * instead of the counterparty, the total unchanged and the payout in full (the vault co-signs the smaller payment).
   */
  | { kind: 'split-input'; cut?: bigint };

/** The kinds of attack. */
export type AttackKind = Attack['kind'];

/** The rule that names each attack: the one a refusal must list (more may be listed). */
export const PRIMARY_RULE: Record<AttackKind, GuardRuleName> = {
  'sol-transfer': 'destination',
  allocate: 'wallet-account',
  assign: 'wallet-account',
  approve: 'token-account',
  'set-authority': 'token-account',
  'close-account': 'close-account',
  'priority-fee': 'priority-fee',
  'output-mint': 'output-mint',
  'inflow-short': 'inflow-short',
  'extra-signer': 'signer',
  'split-input': 'destination',
};

/** The attacks of the acceptance test, one of each kind the issue names, with a label. */
export const ACCEPTANCE_ATTACKS: ReadonlyArray<{ label: string; attack: Attack }> = [
  { label: 'sol-1-lamport', attack: { kind: 'sol-transfer', lamports: 1n } },
  { label: 'sol-0.3', attack: { kind: 'sol-transfer', lamports: 300_000_000n } },
  { label: 'allocate', attack: { kind: 'allocate' } },
  { label: 'assign', attack: { kind: 'assign' } },
  { label: 'approve', attack: { kind: 'approve' } },
  { label: 'set-owner', attack: { kind: 'set-authority', authority: 'owner' } },
  { label: 'set-close-auth', attack: { kind: 'set-authority', authority: 'close' } },
  { label: 'close-account', attack: { kind: 'close-account' } },
  { label: 'create-and-close', attack: { kind: 'close-account', create: true } },
  { label: 'priority-fee', attack: { kind: 'priority-fee' } },
  { label: 'output-mint', attack: { kind: 'output-mint' } },
  { label: 'inflow-short', attack: { kind: 'inflow-short' } },
  { label: 'extra-signer', attack: { kind: 'extra-signer' } },
];

/** Default priority fee of the `priority-fee` attack: 25x the default cap of 1,000,000 lamports. */
export const HOSTILE_PRIORITY_FEE = 25_000_000n;
/** Where the `assign` attack hands the wallet. */
export const HOSTILE_PROGRAM = Keypair.fromSeed(createHash('sha256').update('jup-keeper-test:hostile-program').digest()).publicKey;
/** SPL Token's largest amount (an unlimited approval). */
const U64_MAX = (1n << 64n) - 1n;
const COMPUTE_BUDGET = ComputeBudgetProgram.programId.toBase58();

/** What a rewrite needs to know about the order it rewrites. */
export interface RewriteContext {
  venue: Venue;
  wallet: PublicKey;
  stranger: Keypair;
  input: SimToken;
  /** The mint the transaction really pays out (another than asked for `output-mint`). */
  output: SimToken;
  inAmount: bigint;
}

/** A rewritten transaction and what the response fields must now say. */
export interface Rewrite {
  tx: VersionedTransaction;
  /** The payout after the rewrite (lowered by `inflow-short`), in base units of the real output. */
  outAmount?: bigint;
  /** The priority fee the transaction now pays, in lamports (set by `priority-fee`). */
  priorityFeeLamports?: bigint;
  /** Lamports the response's fee fields should grow by to cover a transfer (`sol-transfer`, `close-account`). */
  coverLamports?: bigint;
  /** The transaction needs the stranger's signature to land (`extra-signer`). */
  needsStranger: boolean;
  /** What was done, for the test's records. */
  description: string;
}

/**
 * Rewrites a venue transaction (v0, no lookup tables) for an attack: decompiles it, adds or changes instructions,
 * recompiles with the same blockhash and payer, unsigned. `output-mint` changes nothing here (the proxy asks the
 * simulator for the other mint's order). Throws when the attack cannot apply to this transaction.
 */
export function rewriteTransaction(original: VersionedTransaction, attack: Attack, ctx: RewriteContext): Rewrite {
  if (original.message.addressTableLookups.length > 0) throw new Error('the hostile venue rewrites only transactions without lookup tables');
  const decompiled = TransactionMessage.decompile(original.message);
  const instructions = [...decompiled.instructions];
  const memoAt = instructions.findIndex((ix) => ix.programId.equals(MEMO_PROGRAM_ID));
  let insertAt = memoAt >= 0 ? memoAt : instructions.length;
  const insert = (...ixs: TransactionInstruction[]) => {
    instructions.splice(insertAt, 0, ...ixs);
    insertAt += ixs.length;
  };
  const { wallet, stranger } = ctx;
  const result: Omit<Rewrite, 'tx'> = { needsStranger: false, description: attack.kind };
  switch (attack.kind) {
    case 'sol-transfer':
      insert(SystemProgram.transfer({ fromPubkey: wallet, toPubkey: stranger.publicKey, lamports: attack.lamports }));
      result.coverLamports = attack.lamports;
      result.description = `transfer ${attack.lamports} lamports from the wallet to ${stranger.publicKey.toBase58()}`;
      break;
    case 'allocate': {
      const space = attack.space ?? 128;
      insert(SystemProgram.allocate({ accountPubkey: wallet, space }));
      result.description = `allocate ${space} bytes of data on the wallet`;
      break;
    }
    case 'assign': {
      const programId = new PublicKey(attack.programId ?? HOSTILE_PROGRAM);
      insert(SystemProgram.assign({ accountPubkey: wallet, programId }));
      result.description = `assign the wallet to ${programId.toBase58()}`;
      break;
    }
    case 'approve': {
      const { account, program } = walletTokenAccount(ctx);
      insert(createApproveInstruction(account, stranger.publicKey, wallet, attack.amount ?? U64_MAX, [], program));
      result.description = `approve ${stranger.publicKey.toBase58()} as delegate of ${account.toBase58()}`;
      break;
    }
    case 'set-authority': {
      const { account, program } = walletTokenAccount(ctx);
      const type = attack.authority === 'owner' ? AuthorityType.AccountOwner : AuthorityType.CloseAccount;
      insert(createSetAuthorityInstruction(account, wallet, type, stranger.publicKey, [], program));
      result.description = `make ${stranger.publicKey.toBase58()} the ${attack.authority === 'owner' ? 'owner' : 'close authority'} of ${account.toBase58()}`;
      break;
    }
    case 'close-account': {
      const target = closeTarget(ctx, attack.account, attack.create ?? false);
      if (target.create) insert(target.create);
      insert(createCloseAccountInstruction(target.account, stranger.publicKey, wallet, [], target.program));
      result.coverLamports = target.rent;
      result.description = `${target.create ? 'create and ' : ''}close ${target.account.toBase58()} with its rent (${target.rent} lamports) to ${stranger.publicKey.toBase58()}`;
      break;
    }
    case 'priority-fee': {
      const lamports = attack.lamports ?? HOSTILE_PRIORITY_FEE;
      const limitIx = instructions.find((ix) => ix.programId.toBase58() === COMPUTE_BUDGET && ix.data[0] === 2);
      if (!limitIx) throw new Error('the transaction sets no compute-unit limit');
      const units = BigInt(limitIx.data.readUInt32LE(1));
      const microLamports = (lamports * 1_000_000n + units - 1n) / units;
      const priceAt = instructions.findIndex((ix) => ix.programId.toBase58() === COMPUTE_BUDGET && ix.data[0] === 3);
      const price = ComputeBudgetProgram.setComputeUnitPrice({ microLamports });
      if (priceAt >= 0) instructions[priceAt] = price;
      else instructions.unshift(price);
      result.priorityFeeLamports = (units * microLamports + 999_999n) / 1_000_000n;
      result.description = `compute-unit price ${microLamports} micro-lamports: a priority fee of ${result.priorityFeeLamports} lamports`;
      break;
    }
    case 'output-mint':
      result.description = `an order paying out ${ctx.output.symbol} (${ctx.output.mint})`;
      break;
    case 'inflow-short': {
      const lowered = lowerPayout(instructions, attack.bps ?? 500, ctx);
      result.outAmount = lowered.outAmount;
      result.description = `the vault pays ${lowered.outAmount} instead of ${lowered.honest} (${attack.bps ?? 500} bps below the feed's ${lowered.worth})`;
      break;
    }
    case 'split-input': {
      const split = splitPayment(instructions, attack.cut ?? 1n, ctx);
      result.description = `the wallet pays ${split.toVault} of its ${split.total} ${ctx.input.symbol} to the counterparty and ${split.cut} to ${stranger.publicKey.toBase58()}`;
      break;
    }
    case 'extra-signer':
      insert(new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [{ pubkey: stranger.publicKey, isSigner: true, isWritable: false }], data: Buffer.from('co-signed by a stranger', 'utf8') }));
      result.needsStranger = true;
      result.description = `a memo that needs ${stranger.publicKey.toBase58()}'s signature`;
      break;
  }
  const message = new TransactionMessage({ payerKey: decompiled.payerKey, recentBlockhash: decompiled.recentBlockhash, instructions }).compileToV0Message();
  return { tx: new VersionedTransaction(message), ...result };
}

/** What the input is worth in the output at the feed's (the simulator's price book) USD prices, base units. */
export function feedWorth(venue: Venue, input: SimToken, output: SimToken, inAmount: bigint): bigint {
  const pin = venue.prices.usd(input.mint);
  const pout = venue.prices.usd(output.mint);
  if (!pin || !pout) throw new Error(`no feed price for ${input.symbol} or ${output.symbol}`);
  const usd = (Number(inAmount) / 10 ** input.decimals) * pin;
  return BigInt(Math.floor((usd / pout) * 10 ** output.decimals));
}

/**
 * Replaces the vault's payout with one `bps` below the feed's worth of the input (or lower, if the honest payout
 * already was), and registers a ticket for the changed instruction so that the vault still co-signs it.
 */
function lowerPayout(instructions: TransactionInstruction[], bps: number, ctx: RewriteContext): { outAmount: bigint; honest: bigint; worth: bigint } {
  const vault = ctx.venue.vault.publicKey;
  const at = instructions.findIndex((ix) => ix.keys.some((k) => k.isSigner && k.pubkey.equals(vault)));
  const payOut = instructions[at];
  if (!payOut) throw new Error('no payout by the vault in the transaction');
  const honest = transferAmount(payOut);
  const worth = feedWorth(ctx.venue, ctx.input, ctx.output, ctx.inAmount);
  const target = (worth * BigInt(10_000 - bps)) / 10_000n;
  const outAmount = target < honest ? target : honest;
  const lowered = withAmount(payOut, outAmount);
  retarget(instructions, payOut, lowered, ctx, { outputAmount: outAmount });
  instructions[at] = lowered;
  return { outAmount, honest, worth };
}

/** Pays `cut` of the wallet's payment to the counterparty to the stranger instead (its token account opened if needed). */
function splitPayment(instructions: TransactionInstruction[], cut: bigint, ctx: RewriteContext): { total: bigint; toVault: bigint; cut: bigint } {
  const { venue, wallet, stranger } = ctx;
  const vault = venue.vault.publicKey;
  const sol = venue.isSol(ctx.input.mint);
  const vaultAta = sol ? null : venue.ata(vault, ctx.input);
  const at = instructions.findIndex((ix) =>
    sol
      ? ix.programId.equals(SystemProgram.programId) && ix.data.readUInt32LE(0) === 2 && ix.keys[0]!.pubkey.equals(wallet) && ix.keys[1]!.pubkey.equals(vault)
      : ix.data[0] === 12 && ix.keys[2]!.pubkey.equals(vaultAta!) && ix.keys[3]!.pubkey.equals(wallet),
  );
  const payIn = instructions[at];
  if (!payIn) throw new Error('no payment by the wallet to the counterparty in the transaction');
  const total = transferAmount(payIn);
  if (cut <= 0n || cut >= total) throw new Error(`cannot split ${cut} off a payment of ${total}`);
  const lowered = withAmount(payIn, total - cut);
  retarget(instructions, payIn, lowered, ctx, { inputAmount: total - cut });
  let side: TransactionInstruction;
  if (sol) {
    side = SystemProgram.transfer({ fromPubkey: wallet, toPubkey: stranger.publicKey, lamports: cut });
  } else {
    const program = new PublicKey(tokenProgramId(ctx.input));
    const mint = new PublicKey(ctx.input.mint);
    const theirs = venue.ata(stranger.publicKey, ctx.input);
    // The thief's account exists beforehand (empty), so that no rent of the wallet's goes into making it.
    if (!venue.chain.account(theirs)) venue.chain.createTokenAccount(theirs, { mint, owner: stranger.publicKey, amount: 0n, program: program.toBase58() });
    side = createTransferCheckedInstruction(venue.ata(wallet, ctx.input), mint, theirs, wallet, cut, ctx.input.decimals, [], program);
  }
  instructions.splice(at, 1, lowered, side);
  return { total, toVault: total - cut, cut };
}

/** The amount of a SystemProgram transfer or an SPL transferChecked. */
function transferAmount(ix: TransactionInstruction): bigint {
  return ix.programId.equals(SystemProgram.programId) ? ix.data.readBigUInt64LE(4) : ix.data.readBigUInt64LE(1);
}

/** The same transfer for another amount. */
function withAmount(ix: TransactionInstruction, amount: bigint): TransactionInstruction {
  const data = Buffer.from(ix.data);
  data.writeBigUInt64LE(amount, ix.programId.equals(SystemProgram.programId) ? 4 : 1);
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data });
}

/**
 * Registers a ticket of the vault for the transaction with `before` replaced by `after`, so that the vault still
 * co-signs it: the venue lies with its own market maker's consent.
 */
function retarget(instructions: TransactionInstruction[], before: TransactionInstruction, after: TransactionInstruction, ctx: RewriteContext, record: Partial<Ticket['record']>): void {
  const original = new VersionedTransaction(new TransactionMessage({ payerKey: ctx.wallet, recentBlockhash: '11111111111111111111111111111111', instructions }).compileToV0Message());
  const ticket = ctx.venue.tickets.match(original, ctx.venue.clock.now());
  if (!ticket) throw new Error('no live ticket of the vault for this transaction');
  const old = instructionHash(before);
  const hostile: Ticket = {
    ...ticket,
    id: `${ticket.id}:hostile`,
    required: ticket.required.map((h) => (h === old ? instructionHash(after) : h)),
    record: { ...ticket.record, ...record },
  };
  ctx.venue.tickets.add(hostile);
}

/** The wallet token account the token attacks aim at: its account of the input (if a token), else of the output. */
function walletTokenAccount(ctx: RewriteContext): { account: PublicKey; program: PublicKey } {
  const token = !ctx.venue.isSol(ctx.input.mint) ? ctx.input : !ctx.venue.isSol(ctx.output.mint) ? ctx.output : undefined;
  if (!token) throw new Error('a SOL-to-SOL order has no token account to attack');
  return { account: ctx.venue.ata(ctx.wallet, token), program: new PublicKey(tokenProgramId(token)) };
}

/** The token account `close-account` closes, and the instruction creating it when the wallet has no empty one. */
function closeTarget(ctx: RewriteContext, given: string | undefined, create: boolean): { account: PublicKey; program: PublicKey; rent: bigint; create?: TransactionInstruction } {
  const { venue, wallet } = ctx;
  const swapMints = new Set([ctx.input.mint, ctx.output.mint]);
  const accounts = venue.chain.tokenAccountsOf(wallet.toBase58());
  const empty = given !== undefined ? accounts.find((a) => a.address === given) : create ? undefined : accounts.find((a) => a.amount === 0n && !swapMints.has(a.mint));
  if (given !== undefined && (!empty || empty.amount !== 0n)) throw new Error(`${given} is not an empty token account of the wallet`);
  if (empty) {
    const address = new PublicKey(empty.address);
    return { account: address, program: new PublicKey(empty.program), rent: BigInt(venue.chain.account(address)?.lamports ?? 0) };
  }
  const held = new Set(accounts.map((a) => a.mint));
  const token = venue.tokens.find((t) => !venue.isSol(t.mint) && t.program === 'token' && !swapMints.has(t.mint) && !held.has(t.mint));
  if (!token) throw new Error('no unused mint for a throwaway token account');
  const program = new PublicKey(tokenProgramId(token));
  const mint = new PublicKey(token.mint);
  const account = getAssociatedTokenAddressSync(mint, wallet, true, program);
  return { account, program, rent: venue.chain.rentExempt(165), create: createAssociatedTokenAccountIdempotentInstruction(wallet, account, wallet, mint, program) };
}
