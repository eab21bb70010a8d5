// The hostile venue's attacks on Ultra's JupiterZ (RFQ) route (test/helpers/hostileVenue.ts serves them for orders
// whose router is `jupiterz`): the same attacks as hostileAttacks.ts, on a transaction whose fee payer is the market
// maker and whose payments are the taker's to the maker and the maker's to the taker, beside the order engine's fill.
// Most attacks add instructions and are hostileAttacks.ts's own; the two that change the trade itself (a short
// payout, a split input) change the maker's side here, fill included, with the maker's consent (a ticket of its own,
// so that the venue could land what the wallet signed).
import { PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { createTransferCheckedInstruction } from '@solana/spl-token';
import { decodeFill, encodeFill, isFill } from '../../src/jupiter/ultra/orderEngine.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import { tokenProgramId } from '../../src/sim/catalog.js';
import { instructionHash, type Ticket } from '../../src/sim/chain/tickets.js';
import { feedWorth, rewriteTransaction, type Attack, type Rewrite, type RewriteContext } from './hostileAttacks.js';

/** Rewrites an RFQ transaction for an attack (see rewriteTransaction); throws when the attack cannot apply to it. */
export function rewriteRfqTransaction(original: VersionedTransaction, attack: Attack, ctx: RewriteContext): Rewrite {
  if (attack.kind !== 'inflow-short' && attack.kind !== 'split-input') return rewriteTransaction(original, attack, ctx);
  const decompiled = TransactionMessage.decompile(original.message);
  const maker = decompiled.payerKey;
  const instructions = [...decompiled.instructions];
  const ticket = ctx.venue.tickets.match(original, ctx.venue.clock.now());
  if (!ticket) throw new Error('no live ticket of the market maker for this RFQ transaction');
  const fillAt = instructions.findIndex((ix) => isFill(rawInstruction(ix)));
  if (fillAt < 0) throw new Error('the RFQ transaction carries no fill');
  const fill = decodeFill(rawInstruction(instructions[fillAt]!));
  const replaced = new Map<string, string>();
  const replace = (at: number, ix: TransactionInstruction): void => {
    replaced.set(instructionHash(instructions[at]!), instructionHash(ix));
    instructions[at] = ix;
  };
  let result: Omit<Rewrite, 'tx'>;
  if (attack.kind === 'inflow-short') {
    const at = instructions.findIndex((ix) => isTransferFrom(ix, maker));
    if (at < 0) throw new Error('no payout by the maker in the RFQ transaction');
    const honest = amountOf(instructions[at]!);
    const worth = feedWorth(ctx.venue, ctx.input, ctx.output, ctx.inAmount);
    const target = (worth * BigInt(10_000 - (attack.bps ?? 500))) / 10_000n;
    const outAmount = target < honest ? target : honest;
    replace(at, withAmount(instructions[at]!, outAmount));
    replace(fillAt, withFillData(instructions[fillAt]!, { ...fill, outputAmount: outAmount }));
    result = { needsStranger: false, outAmount, description: `the maker pays ${outAmount} instead of ${honest} (${attack.bps ?? 500} bps below the feed's ${worth})` };
  } else {
    const cut = attack.cut ?? 1n;
    const at = instructions.findIndex((ix) => isTransferFrom(ix, ctx.wallet));
    if (at < 0) throw new Error('no payment by the wallet to the maker in the RFQ transaction');
    const total = amountOf(instructions[at]!);
    if (cut <= 0n || cut >= total) throw new Error(`cannot split ${cut} off a payment of ${total}`);
    replace(at, withAmount(instructions[at]!, total - cut));
    const side = sideTransfer(ctx, cut);
    instructions.splice(at + 1, 0, side);
    result = { needsStranger: false, description: `the wallet pays ${total - cut} of its ${total} ${ctx.input.symbol} to the maker and ${cut} to ${ctx.stranger.publicKey.toBase58()}` };
  }
  const hostile: Ticket = { ...ticket, id: `${ticket.id}:hostile`, required: ticket.required.map((h) => replaced.get(h) ?? h), record: { ...ticket.record, ...(result.outAmount !== undefined ? { outputAmount: result.outAmount } : {}) } };
  ctx.venue.tickets.add(hostile);
  const message = new TransactionMessage({ payerKey: maker, recentBlockhash: decompiled.recentBlockhash, instructions }).compileToV0Message();
  return { tx: new VersionedTransaction(message), ...result };
}

/** Whether an instruction moves lamports or tokens out of `owner` (a system transfer from it, or a token transfer it signs). */
function isTransferFrom(ix: TransactionInstruction, owner: PublicKey): boolean {
  if (ix.programId.equals(SystemProgram.programId)) return ix.data.readUInt32LE(0) === 2 && ix.keys[0]!.pubkey.equals(owner);
  return ix.data[0] === 12 && ix.keys[3]!.pubkey.equals(owner);
}

function amountOf(ix: TransactionInstruction): bigint {
  return ix.programId.equals(SystemProgram.programId) ? ix.data.readBigUInt64LE(4) : ix.data.readBigUInt64LE(1);
}

function withAmount(ix: TransactionInstruction, amount: bigint): TransactionInstruction {
  const data = Buffer.from(ix.data);
  data.writeBigUInt64LE(amount, ix.programId.equals(SystemProgram.programId) ? 4 : 1);
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data });
}

function withFillData(ix: TransactionInstruction, terms: ReturnType<typeof decodeFill>): TransactionInstruction {
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data: encodeFill(terms) });
}

/** `cut` of the wallet's input to the stranger (its token account opened beforehand, empty, so the wallet pays no rent). */
function sideTransfer(ctx: RewriteContext, cut: bigint): TransactionInstruction {
  const { venue, wallet, stranger, input } = ctx;
  if (venue.isSol(input.mint)) return SystemProgram.transfer({ fromPubkey: wallet, toPubkey: stranger.publicKey, lamports: cut });
  const theirs = venue.ata(stranger.publicKey, input);
  const mint = new PublicKey(input.mint);
  const program = tokenProgramId(input);
  if (!venue.chain.account(theirs)) venue.chain.createTokenAccount(theirs, { mint, owner: stranger.publicKey, amount: 0n, program });
  return createTransferCheckedInstruction(venue.ata(wallet, input), mint, theirs, wallet, cut, input.decimals, [], new PublicKey(program));
}
