// Attacks on the moves of a sim-shaped product transaction, the product instruction left exactly as the venue built
// it: what a lying venue does inside the instruction on mainnet, where the program's CPIs move the money and the
// instruction's accounts say nothing about them. hostileProducts.ts rewrites the terms the instruction carries (and
// the moves with them); these rewrite only the moves, so only the flow and payout rules can see them. Each returns a
// sim-shaped transaction: its mainnet twin (mainnetShape.ts) carries the changed moves as inner instructions.
// Only simulated (the guard's simulation skips signatures), so no co-signer ticket is registered for them.
import { createHash, randomBytes } from 'node:crypto';
import { PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction, type Keypair } from '@solana/web3.js';
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { WSOL_MINT } from '../../src/lib/mints.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import type { Venue } from '../../src/sim/venue.js';

/** One lie about the moves inside a product instruction. */
export type MoveAttack =
  /** The wallet's deposit goes to the stranger's token account; the instruction still names the escrow. */
  | { kind: 'deposit-stranger' }
  /** The wallet's deposit goes into another escrow of the product's program (another order's token account). */
  | { kind: 'deposit-other-escrow' }
  /** A payout out of the escrow or vault goes to the stranger's account; the instruction still names the wallet's. */
  | { kind: 'payout-stranger-inside' }
  /** A payout (or the shares minted) `bps` (default 1,000) short; the rest stays where it was. */
  | { kind: 'payout-short'; bps?: number }
  /** The wallet also pays for an account created with a seed that the instruction does not name. */
  | { kind: 'extra-create' }
  /** A lend deposit's shares minted to the stranger's account of the share token. */
  | { kind: 'mint-stranger' }
  /** A lend withdrawal burns twice the shares it should. */
  | { kind: 'burn-more' }
  /** The deposit goes into the escrow the instruction names, and the escrow's delegate pays it on to the stranger. */
  | { kind: 'deposit-drain' }
  /** The stranger is made delegate of a token account of the wallet's that the moves use. */
  | { kind: 'approve-stranger' };

/** What a move attack needs. */
export interface MoveAttackContext {
  venue: Venue;
  wallet: PublicKey;
  stranger: Keypair;
  /** The product's program (base58). */
  program: string;
}

/** A sim-shaped transaction with its moves rewritten. */
export interface MoveRewrite {
  tx: VersionedTransaction;
  description: string;
  /** The account the attack pays into, when it moves funds or shares to someone else. */
  thief?: string;
}

const TOKEN_PROGRAMS = new Set<string>([PROGRAM_IDS.splToken, PROGRAM_IDS.token2022]);
/** SPL Token instruction tags and where their accounts sit. */
const TRANSFER = 3;
const TRANSFER_CHECKED = 12;
const MINT_TO = 7;
const MINT_TO_CHECKED = 14;
const BURN = 8;
const BURN_CHECKED = 15;

/** A token instruction's source, destination and mint (where it names one), amounts at byte 1 (transfers, mints to, burns). */
interface TokenMove {
  tag: number;
  from?: PublicKey;
  to?: PublicKey;
  mint?: PublicKey;
}

function tokenMove(ix: TransactionInstruction): TokenMove | undefined {
  if (!TOKEN_PROGRAMS.has(ix.programId.toBase58())) return undefined;
  const tag = ix.data[0]!;
  const k = ix.keys.map((x) => x.pubkey);
  if (tag === TRANSFER) return { tag, from: k[0], to: k[1] };
  if (tag === TRANSFER_CHECKED) return { tag, from: k[0], mint: k[1], to: k[2] };
  if (tag === MINT_TO || tag === MINT_TO_CHECKED) return { tag, mint: k[0], to: k[1] };
  if (tag === BURN || tag === BURN_CHECKED) return { tag, from: k[0], mint: k[1] };
  return undefined;
}

/**
 * Rewrites the moves of a sim-shaped product transaction (no lookup tables) for an attack: same payer, blockhash and
 * product instruction, unsigned. Throws when the transaction has no move the attack applies to.
 */
export function attackMoves(original: VersionedTransaction, attack: MoveAttack, ctx: MoveAttackContext): MoveRewrite {
  const m = TransactionMessage.decompile(original.message);
  const instructions = [...m.instructions];
  // The wallet's token accounts: on chain, or its associated account of the move's mint (opened in this transaction).
  const mine = (a: PublicKey | undefined, mv: TokenMove, ix: TransactionInstruction): boolean => {
    if (!a) return false;
    const held = ctx.venue.chain.tokenAccount(a);
    if (held) return held.owner === ctx.wallet.toBase58();
    return mv.mint !== undefined && a.equals(getAssociatedTokenAddressSync(mv.mint, ctx.wallet, true, ix.programId));
  };
  const find = (what: string, test: (mv: TokenMove, ix: TransactionInstruction) => boolean): number => {
    const at = instructions.findIndex((ix) => {
      const mv = tokenMove(ix);
      return mv !== undefined && test(mv, ix);
    });
    if (at < 0) throw new Error(`the transaction has no ${what} for the ${attack.kind} attack`);
    return at;
  };
  /** The stranger's account of the mint and token program of a move into `to`. */
  const strangers = (at: number): PublicKey => {
    const ix = instructions[at]!;
    const mv = tokenMove(ix)!;
    const mint = mv.mint?.toBase58() ?? ctx.venue.chain.tokenAccount(mv.to!)?.mint;
    if (!mint) throw new Error(`no mint for the move into ${mv.to?.toBase58()}`);
    return openAccount(ctx.venue, ctx.stranger.publicKey, mint, ix.programId.toBase58());
  };
  const isTransfer = (mv: { tag: number }) => mv.tag === TRANSFER || mv.tag === TRANSFER_CHECKED;
  const isMint = (mv: { tag: number }) => mv.tag === MINT_TO || mv.tag === MINT_TO_CHECKED;
  let out: Omit<MoveRewrite, 'tx'>;

  switch (attack.kind) {
    case 'deposit-stranger':
    case 'deposit-other-escrow': {
      const at = find('deposit out of the wallet', (mv, ix) => isTransfer(mv) && mine(mv.from, mv, ix) && !mine(mv.to, mv, ix));
      const to = tokenMove(instructions[at]!)!.to!;
      const into = attack.kind === 'deposit-stranger' ? strangers(at) : otherEscrow(ctx.venue, new PublicKey(ctx.program), to);
      instructions[at] = withKey(instructions[at]!, to, into);
      out = { description: `the deposit goes into ${into.toBase58()} (${attack.kind === 'deposit-stranger' ? 'the stranger\'s account' : 'another escrow of the program'}) instead of the escrow ${to.toBase58()}`, thief: into.toBase58() };
      break;
    }
    case 'payout-stranger-inside': {
      const at = find('payout to the wallet', (mv, ix) => isTransfer(mv) && !mine(mv.from, mv, ix) && mine(mv.to, mv, ix));
      const to = tokenMove(instructions[at]!)!.to!;
      const into = strangers(at);
      instructions[at] = withKey(instructions[at]!, to, into);
      out = { description: `the payout goes to ${into.toBase58()}, the stranger's account, instead of the wallet's ${to.toBase58()}`, thief: into.toBase58() };
      break;
    }
    case 'payout-short': {
      const bps = BigInt(attack.bps ?? 1_000);
      let at = instructions.findIndex((ix) => {
        const mv = tokenMove(ix);
        return mv !== undefined && isTransfer(mv) && !mine(mv.from, mv, ix) && mine(mv.to, mv, ix);
      });
      if (at < 0) at = find('payout or mint to the wallet', (mv, ix) => isMint(mv) && mine(mv.to, mv, ix));
      const was = amountOf(instructions[at]!);
      instructions[at] = withAmount(instructions[at]!, was - (was * bps) / 10_000n);
      out = { description: `the payout is ${was - (was * bps) / 10_000n} instead of ${was}` };
      break;
    }
    case 'mint-stranger': {
      const at = find('mint of shares to the wallet', (mv, ix) => isMint(mv) && mine(mv.to, mv, ix));
      const to = tokenMove(instructions[at]!)!.to!;
      const into = strangers(at);
      instructions[at] = withKey(instructions[at]!, to, into);
      out = { description: `the shares are minted to ${into.toBase58()}, the stranger's account, instead of the wallet's ${to.toBase58()}`, thief: into.toBase58() };
      break;
    }
    case 'burn-more': {
      const at = find('burn of the wallet\'s shares', (mv, ix) => (mv.tag === BURN || mv.tag === BURN_CHECKED) && mine(mv.from, mv, ix));
      const was = amountOf(instructions[at]!);
      instructions[at] = withAmount(instructions[at]!, was * 2n);
      out = { description: `the withdrawal burns ${was * 2n} shares instead of ${was}` };
      break;
    }
    case 'deposit-drain': {
      const at = find('deposit out of the wallet', (mv, ix) => mv.tag === TRANSFER_CHECKED && mine(mv.from, mv, ix) && !mine(mv.to, mv, ix));
      const deposit = instructions[at]!;
      const { to: escrow, mint } = tokenMove(deposit)!;
      const into = strangers(at);
      // The same transferChecked (amount, decimals), out of the escrow, signed by its delegate (the venue's keeper).
      const drain = new TransactionInstruction({
        programId: deposit.programId,
        keys: [
          { pubkey: escrow!, isSigner: false, isWritable: true },
          { pubkey: mint!, isSigner: false, isWritable: false },
          { pubkey: into, isSigner: false, isWritable: true },
          { pubkey: ctx.venue.keeper.publicKey, isSigner: true, isWritable: false },
        ],
        data: Buffer.from(deposit.data),
      });
      instructions.splice(instructions.findIndex((ix) => ix.programId.toBase58() === ctx.program) + 1, 0, drain);
      out = { description: `the deposit into ${escrow!.toBase58()} is paid on to ${into.toBase58()}, the stranger's account, by the escrow's delegate`, thief: into.toBase58() };
      break;
    }
    case 'approve-stranger': {
      const at = find('token account of the wallet', (mv, ix) => mine(mv.from, mv, ix) || mine(mv.to, mv, ix));
      const ix = instructions[at]!;
      const mv = tokenMove(ix)!;
      const account = mine(mv.from, mv, ix) ? mv.from! : mv.to!;
      const approve = createApproveInstruction(account, ctx.stranger.publicKey, ctx.wallet, 2n ** 64n - 1n, [], ix.programId);
      instructions.splice(instructions.findIndex((x) => x.programId.toBase58() === ctx.program), 0, approve);
      out = { description: `the stranger becomes the delegate of the wallet's ${account.toBase58()} for every token it holds` };
      break;
    }
    case 'extra-create': {
      const seed = `ms${randomBytes(4).toString('hex')}`;
      const program = new PublicKey(ctx.program);
      // PublicKey.createWithSeed is async; the address is sha256(base, seed, program).
      const account = new PublicKey(createHash('sha256').update(Buffer.concat([ctx.wallet.toBuffer(), Buffer.from(seed), program.toBuffer()])).digest());
      const space = 165;
      const create = SystemProgram.createAccountWithSeed({ fromPubkey: ctx.wallet, basePubkey: ctx.wallet, seed, newAccountPubkey: account, lamports: Number(ctx.venue.chain.rentExempt(space)), space, programId: program });
      const at = instructions.findIndex((ix) => ix.programId.equals(program));
      instructions.splice(at, 0, create);
      out = { description: `the wallet also pays the rent of ${account.toBase58()} (${space} bytes, seed ${seed}), which the instruction does not name` };
      break;
    }
  }
  const message = new TransactionMessage({ payerKey: m.payerKey, recentBlockhash: m.recentBlockhash, instructions }).compileToV0Message();
  return { tx: new VersionedTransaction(message), ...out };
}

function amountOf(ix: TransactionInstruction): bigint {
  return Buffer.from(ix.data).readBigUInt64LE(1);
}

function withAmount(ix: TransactionInstruction, amount: bigint): TransactionInstruction {
  const data = Buffer.from(ix.data);
  data.writeBigUInt64LE(amount, 1);
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data });
}

function withKey(ix: TransactionInstruction, from: PublicKey, to: PublicKey): TransactionInstruction {
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys.map((k) => (k.pubkey.equals(from) ? { ...k, pubkey: to } : k)), data: ix.data });
}

/** A token account of the mint `like` holds owned by a fresh address of `program`: another order's escrow. */
function otherEscrow(venue: Venue, program: PublicKey, like: PublicKey): PublicKey {
  const held = venue.chain.tokenAccount(like);
  if (!held) throw new Error(`${like.toBase58()} is not a token account`);
  const [order] = PublicKey.findProgramAddressSync([Buffer.from('order'), randomBytes(8)], program);
  return openAccount(venue, order, held.mint, held.program);
}

/** `owner`'s associated token account of a mint, opened (empty) beforehand as a thief's or another order's would be. */
function openAccount(venue: Venue, owner: PublicKey, mint: string, program: string): PublicKey {
  const address = getAssociatedTokenAddressSync(new PublicKey(mint), owner, true, new PublicKey(program));
  if (!venue.chain.account(address)) venue.chain.createTokenAccount(address, { mint: new PublicKey(mint), owner, amount: 0n, program, native: mint === WSOL_MINT });
  return address;
}
