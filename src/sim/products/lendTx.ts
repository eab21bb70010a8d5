import { ComputeBudgetProgram, PublicKey, type Connection, type TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createBurnInstruction, createMintToInstruction } from '@solana/spl-token';
import { getDepositContext, getWithdrawContext } from '@jup-ag/lend/earn';
import { tokenProgramId } from '../catalog.js';
import type { LedgerRecord } from '../chain/chain.js';
import { instructionHash, type Ticket } from '../chain/tickets.js';
import type { Venue } from '../venue.js';
import type { EscrowBook } from './escrow.js';
import type { LendMarket } from './lendMarkets.js';
import type { LendProgramCodec } from '../../jupiter/programs/lend.js';

/** The four Earn operations: by asset amount (deposit, withdraw) or by shares (mint, redeem). */
export type LendOp = 'deposit' | 'withdraw' | 'mint' | 'redeem';

/** Compute-unit limit of a venue Earn transaction. */
export const LEND_COMPUTE_UNITS = 200_000;
/** Compute-unit price of a venue Earn transaction, micro-lamports. */
const LEND_MICRO_LAMPORTS = 10_000n;
/** How long the keeper stands ready to co-sign an Earn transaction it built (sim ms): past any blockhash it carries. */
export const LEND_TICKET_MS = 120_000;

/** One Earn operation, its amounts settled at build time. */
export interface LendPlan {
  op: LendOp;
  market: LendMarket;
  user: PublicKey;
  /** Asset moving into (deposit, mint) or out of (withdraw, redeem) the vault, base units. */
  assets: bigint;
  /** jlTokens minted (deposit, mint) or burnt (withdraw, redeem), base units. */
  shares: bigint;
  /**
   * Built as the op's bounded variant (depositWithMinAmountOut, mintWithMaxAssets, withdrawWithMaxSharesBurn,
   * redeemWithMinAmountOut) with this bound: least shares, most assets, most shares burnt, least assets.
   */
  bound?: bigint | undefined;
}

/** The bounded variant of each op and the name of its bound in the Earn IDL. */
const BOUNDED: Record<LendOp, { name: string; arg: string }> = {
  deposit: { name: 'depositWithMinAmountOut', arg: 'minAmountOut' },
  mint: { name: 'mintWithMaxAssets', arg: 'maxAssets' },
  withdraw: { name: 'withdrawWithMaxSharesBurn', arg: 'maxSharesBurn' },
  redeem: { name: 'redeemWithMinAmountOut', arg: 'minAmountOut' },
};

/**
 * The bound a bounded variant of `plan` carries when the venue allows `slippageBps` beyond the amounts it settled:
 * a least (shares of a deposit, assets of a redemption) rounded down, a most (assets of a mint, shares a withdrawal
 * burns) rounded up.
 */
export function lendBound(plan: Pick<LendPlan, 'op' | 'assets' | 'shares'>, slippageBps: number): bigint {
  const bps = BigInt(slippageBps);
  const less = (n: bigint) => (n * (10_000n - bps)) / 10_000n;
  const more = (n: bigint) => (n * (10_000n + bps) + 9_999n) / 10_000n;
  switch (plan.op) {
    case 'deposit':
      return less(plan.shares);
    case 'mint':
      return more(plan.assets);
    case 'withdraw':
      return more(plan.shares);
    case 'redeem':
      return less(plan.assets);
  }
}

/** What the parts of the desk a build needs. */
export interface LendTxDeps {
  venue: Venue;
  escrows: EscrowBook;
  codec: LendProgramCodec;
  connection: Connection;
}

/** A built Earn operation: its instructions, and the ticket that has the keeper co-sign them. */
export interface BuiltLendOp {
  instructions: TransactionInstruction[];
  ticket: Ticket;
}

/**
 * The user's instructions of an Earn operation. The real program does every move by CPI inside its own
 * instruction; the simulator runs a no-op program at its id, so the moves are the transaction's own instructions
 * around it, with the same effect: the asset goes into (or out of) the vault of the liquidity layer and jlTokens are
 * minted to (or burnt from) the user. The keeper is the jlToken mint's authority and the vault's delegate, so it
 * co-signs (through the ticket) only a transaction that holds both sides of the operation.
 */
export async function buildLendOp(deps: LendTxDeps, plan: LendPlan, onLanded: (signature: string) => void): Promise<BuiltLendOp> {
  const { venue, escrows, codec } = deps;
  const { market, user } = plan;
  const asset = new PublicKey(market.asset.mint);
  const program = new PublicKey(tokenProgramId(market.asset));
  const jlAccount = market.jlAccount(user);
  const keeper = venue.keeper.publicKey;
  const moves: TransactionInstruction[] = [];
  const setup: TransactionInstruction[] = [];
  let programIx: TransactionInstruction;
  if (plan.op === 'deposit' || plan.op === 'mint') {
    const context = await getDepositContext({ asset, signer: user, connection: deps.connection });
    setup.push(createAssociatedTokenAccountIdempotentInstruction(user, jlAccount, user, market.addresses.fTokenMint, program));
    moves.push(...escrows.depositInstructions(user, market.asset, market.addresses.vault, plan.assets));
    moves.push(createMintToInstruction(market.addresses.fTokenMint, jlAccount, keeper, plan.shares, [], program));
    programIx = plan.op === 'deposit' ? codec.instruction('deposit', context, { assets: plan.assets }) : codec.instruction('mint', context, { shares: plan.shares });
    if (plan.bound !== undefined) programIx = boundedInstruction(codec, plan, context);
  } else {
    const context = await getWithdrawContext({ asset, signer: user, connection: deps.connection });
    moves.push(createBurnInstruction(jlAccount, market.addresses.fTokenMint, user, plan.shares, [], program));
    moves.push(...escrows.payoutInstructions(market.addresses.vault, market.asset, user, plan.assets));
    programIx = plan.op === 'withdraw' ? codec.instruction('withdraw', context, { amount: plan.assets }) : codec.instruction('redeem', context, { shares: plan.shares });
    if (plan.bound !== undefined) programIx = boundedInstruction(codec, plan, context);
  }
  const deposit = plan.op === 'deposit' || plan.op === 'mint';
  const record: LedgerRecord = deposit
    ? { kind: 'lend-deposit', wallet: user.toBase58(), requestId: null, inputMint: market.asset.mint, inputAmount: plan.assets, outputMint: market.jlMint, outputAmount: plan.shares }
    : { kind: 'lend-withdraw', wallet: user.toBase58(), requestId: null, inputMint: market.jlMint, inputAmount: plan.shares, outputMint: market.asset.mint, outputAmount: plan.assets };
  const now = venue.clock.now();
  const ticket: Ticket = {
    id: `lend:${plan.op}:${user.toBase58()}:${now}:${plan.assets}:${plan.shares}`,
    cosigner: venue.keeper,
    required: [...moves, programIx].map(instructionHash),
    expiresAtMs: now + LEND_TICKET_MS,
    record,
    onLanded: (signature) => onLanded(signature),
  };
  return { instructions: [...setup, ...moves, programIx], ticket };
}

/** The bounded variant of the plan's op, its first argument the op's own (assets of a deposit or withdrawal, else shares). */
function boundedInstruction(codec: LendProgramCodec, plan: LendPlan, context: Readonly<Record<string, PublicKey>>): TransactionInstruction {
  const { name, arg } = BOUNDED[plan.op];
  const first: Record<string, bigint> = plan.op === 'deposit' ? { assets: plan.assets } : plan.op === 'withdraw' ? { amount: plan.assets } : { shares: plan.shares };
  return codec.instruction(name, context, { ...first, [arg]: plan.bound! });
}

/** The compute-budget instructions the venue puts in front of an Earn transaction it builds. */
export function lendComputeBudget(): TransactionInstruction[] {
  return [ComputeBudgetProgram.setComputeUnitLimit({ units: LEND_COMPUTE_UNITS }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: LEND_MICRO_LAMPORTS })];
}

/** An instruction as the -instructions endpoints return it: base58 keys, base64 data. */
export function instructionJson(ix: TransactionInstruction): { programId: string; accounts: Array<{ pubkey: string; isSigner: boolean; isWritable: boolean }>; data: string } {
  return {
    programId: ix.programId.toBase58(),
    accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(ix.data).toString('base64'),
  };
}
