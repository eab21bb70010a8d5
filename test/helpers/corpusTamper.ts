// Tampered twins of a recorded transaction (corpus.ts): the venue lying in the transaction, in what it does, or in
// both, with the recording changed consistently so that a node would answer the twin as the recording says: the
// message recompiled (same payer, blockhash and lookup tables), the simulation's inner instructions and the states
// after moved to match. A twin never changes what the chain held before, except to add an account the lie needs (a
// stranger's mint, another maker's order).
import { createHash } from 'node:crypto';
import { AccountLayout, AccountState } from '@solana/spl-token';
import { AddressLookupTableAccount, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { WSOL_MINT } from '../../src/lib/mints.js';
import type { AccountSnapshot } from '../../src/solana/guardChanges.js';
import { tokenAccountBytes, type InnerGroup, type Recorded } from './corpus.js';

/** A stranger's address, the same in every twin: no one in the recording holds it. */
export const STRANGER = new PublicKey(createHash('sha256').update('jup-keeper corpus: a stranger').digest()).toBase58();
/** The stranger's token account (no state: the guard sees a transfer into an account that is not the wallet's). */
export const STRANGER_TOKENS = new PublicKey(createHash('sha256').update('jup-keeper corpus: a stranger\'s token account').digest()).toBase58();
/** A mint that is not the intent's, with an account the twin adds. */
export const STRANGER_MINT = new PublicKey(createHash('sha256').update('jup-keeper corpus: a mint no intent names').digest()).toBase58();

type Inner = Record<string, unknown> & { parsed?: { type?: string; info?: Record<string, unknown> } };

/** A copy of a recording with its states and simulation open to change. */
function copy(r: Recorded): Recorded & { pre: Map<string, AccountSnapshot | null>; post: Map<string, AccountSnapshot | null> } {
  return { ...r, pre: new Map(r.pre), post: new Map(r.post), simulation: { ...r.simulation, innerInstructions: structuredClone(r.simulation.innerInstructions) } };
}

/** Every parsed inner instruction of a recording, with the top-level index it ran under. */
export function innerOf(r: Recorded): Array<{ index: number; ix: Inner }> {
  return r.simulation.innerInstructions.flatMap((g: InnerGroup) => g.instructions.map((ix) => ({ index: g.index, ix })));
}

/** The one inner token transfer that `match` picks; throws unless exactly one does. */
function theTransfer(r: Recorded, match: (info: Record<string, unknown>) => boolean, what: string): { index: number; ix: Inner; info: Record<string, unknown>; amount: bigint } {
  const found = innerOf(r).filter(({ ix }) => (ix.parsed?.type === 'transfer' || ix.parsed?.type === 'transferChecked') && ix.programId !== SystemProgram.programId.toBase58() && match(ix.parsed.info ?? {}));
  if (found.length !== 1) throw new Error(`${r.fixture.id}: ${found.length} inner token transfers are ${what}`);
  const { index, ix } = found[0]!;
  const info = ix.parsed!.info!;
  const raw = info.tokenAmount ? (info.tokenAmount as { amount: string }).amount : (info.amount as string);
  return { index, ix, info, amount: BigInt(raw) };
}

/** A token account's amount after the transaction, moved by `delta`; a closed wrapped-SOL account's lamports went to `closedTo`. */
function moveTokens(post: Map<string, AccountSnapshot | null>, account: string, delta: bigint, closedTo: string | undefined): void {
  const after = post.get(account);
  if (after) {
    const t = AccountLayout.decode(after.data.subarray(0, AccountLayout.span));
    const native = t.mint.toBase58() === WSOL_MINT;
    post.set(account, { ...after, lamports: after.lamports + (native ? delta : 0n), data: Buffer.concat([tokenAccountBytes({ mint: t.mint.toBase58(), owner: t.owner.toBase58(), amount: t.amount + delta, delegate: t.delegateOption ? t.delegate.toBase58() : undefined, delegatedAmount: t.delegatedAmount, closeAuthority: t.closeAuthorityOption ? t.closeAuthority.toBase58() : undefined, nativeReserve: t.isNativeOption ? t.isNative : undefined, frozen: t.state === AccountState.Frozen }), Buffer.from(after.data.subarray(AccountLayout.span))]) });
    return;
  }
  // Closed by the transaction: what it would have held went to whoever it was closed to, as lamports (wrapped SOL).
  if (!closedTo) throw new Error(`${account} is closed by the transaction and no close of it is recorded`);
  const to = post.get(closedTo);
  if (!to) throw new Error(`${closedTo}, where ${account} is closed to, has no state after`);
  post.set(closedTo, { ...to, lamports: to.lamports + delta });
}

/** Where the recording (inner or top-level) closes `account` to, if it does. */
function closedTo(r: Recorded, account: string): string | undefined {
  const inner = innerOf(r).find(({ ix }) => ix.parsed?.type === 'closeAccount' && ix.parsed.info?.account === account);
  if (inner) return inner.ix.parsed!.info!.destination as string;
  const keys = r.tx.message.staticAccountKeys.map((k) => k.toBase58());
  for (const ix of r.tx.message.compiledInstructions) {
    if (keys[ix.programIdIndex]?.startsWith('Token') && ix.data[0] === 9 && keys[ix.accountKeyIndexes[0]!] === account) return keys[ix.accountKeyIndexes[1]!];
  }
  return undefined;
}

/**
 * The inner transfer `match` picks sends its tokens to the stranger instead: its destination's balance after loses
 * them (or, closed, what it was closed to loses them as lamports).
 */
export function divertTransfer(r: Recorded, match: (info: Record<string, unknown>) => boolean, what: string): Recorded {
  const out = copy(r);
  const t = theTransfer(out, match, what);
  const destination = t.info.destination as string;
  t.info.destination = STRANGER_TOKENS;
  moveTokens(out.post, destination, -t.amount, closedTo(out, destination));
  return out;
}

/** The inner closeAccount of `account` sends what it holds to the stranger instead: its destination's lamports after lose them. */
export function divertClose(r: Recorded, account: string): Recorded {
  const out = copy(r);
  const found = innerOf(out).filter(({ ix }) => ix.parsed?.type === 'closeAccount' && ix.parsed.info?.account === account);
  if (found.length !== 1) throw new Error(`${r.fixture.id}: ${found.length} inner closes of ${account}`);
  const info = found[0]!.ix.parsed!.info!;
  const destination = info.destination as string;
  info.destination = STRANGER;
  const held = r.pre.get(account)?.lamports ?? 0n;
  const to = out.post.get(destination);
  if (!to) throw new Error(`${destination} has no state after`);
  out.post.set(destination, { ...to, lamports: to.lamports - held });
  out.post.set(STRANGER, { lamports: held, owner: SystemProgram.programId.toBase58(), data: new Uint8Array(0) });
  return out;
}

/** The inner mintTo of `mint` mints into the stranger's account instead: its destination's balance after loses it. */
export function divertMint(r: Recorded, mint: string): Recorded {
  const out = copy(r);
  const found = innerOf(out).filter(({ ix }) => (ix.parsed?.type === 'mintTo' || ix.parsed?.type === 'mintToChecked') && ix.parsed.info?.mint === mint);
  if (found.length !== 1) throw new Error(`${r.fixture.id}: ${found.length} inner mints of ${mint}`);
  const info = found[0]!.ix.parsed!.info!;
  const destination = info.account as string;
  info.account = STRANGER_TOKENS;
  const raw = info.tokenAmount ? (info.tokenAmount as { amount: string }).amount : (info.amount as string);
  moveTokens(out.post, destination, -BigInt(raw), undefined);
  return out;
}

/**
 * The inner system transfer into `to` (SOL paid as lamports, as a market maker pays a taker) pays the stranger
 * `numerator / denominator` of it instead (all of it by default): `to` after loses that much.
 */
export function divertLamports(r: Recorded, to: string, numerator = 1n, denominator = 1n): Recorded {
  const out = copy(r);
  const found = innerOf(out).filter(({ ix }) => ix.programId === SystemProgram.programId.toBase58() && ix.parsed?.type === 'transfer' && ix.parsed.info?.destination === to);
  if (found.length !== 1) throw new Error(`${r.fixture.id}: ${found.length} inner system transfers pay ${to}`);
  const info = found[0]!.ix.parsed!.info!;
  const amount = BigInt(info.lamports as number);
  const diverted = (amount * numerator) / denominator;
  info.lamports = Number(amount - diverted);
  const group = out.simulation.innerInstructions.find((g) => g.instructions.includes(found[0]!.ix))!;
  group.instructions.splice(group.instructions.indexOf(found[0]!.ix) + 1, 0, { parsed: { info: { destination: STRANGER, lamports: Number(diverted), source: info.source }, type: 'transfer' }, program: 'system', programId: SystemProgram.programId.toBase58(), stackHeight: found[0]!.ix.stackHeight });
  const after = out.post.get(to);
  if (!after) throw new Error(`${to} has no state after`);
  out.post.set(to, { ...after, lamports: after.lamports - diverted });
  return out;
}

/** The inner transfer `match` picks moves `factor` times its amount (a worse price, a bigger deposit); balances follow. */
export function scaleTransfer(r: Recorded, match: (info: Record<string, unknown>) => boolean, what: string, numerator: bigint, denominator: bigint): Recorded {
  const out = copy(r);
  const t = theTransfer(out, match, what);
  const amount = (t.amount * numerator) / denominator;
  if (t.info.tokenAmount) (t.info.tokenAmount as { amount: string }).amount = String(amount);
  else t.info.amount = String(amount);
  const source = t.info.source as string;
  const destination = t.info.destination as string;
  moveTokens(out.post, source, t.amount - amount, closedTo(out, source));
  moveTokens(out.post, destination, amount - t.amount, closedTo(out, destination));
  return out;
}

/** The token account `account` holds the stranger's mint (before and after), and its inner transfers say so. */
export function swapMintOf(r: Recorded, account: string): Recorded {
  const out = copy(r);
  for (const states of [out.pre, out.post]) {
    const a = states.get(account);
    if (!a) continue;
    const data = Buffer.from(a.data);
    new PublicKey(STRANGER_MINT).toBuffer().copy(data, 0);
    states.set(account, { ...a, data });
  }
  for (const { ix } of innerOf(out)) if (ix.parsed?.info?.destination === account && ix.parsed.info.mint) ix.parsed.info.mint = STRANGER_MINT;
  return withMint(out, STRANGER_MINT);
}

/** The stranger's mint exists (6 decimals, classic token program). */
export function withMint(r: Recorded, mint: string): Recorded {
  const out = copy(r);
  const data = Buffer.alloc(82);
  data[44] = 6;
  data[45] = 1;
  out.pre.set(mint, { lamports: 1_461_600n, owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', data });
  return out;
}

/** An account before (and, unless it is written, after) the transaction. */
export function withAccount(r: Recorded, address: string, state: AccountSnapshot | null): Recorded {
  const out = copy(r);
  out.pre.set(address, state);
  if (!out.post.has(address)) out.post.set(address, state);
  return out;
}

/** The message recompiled with its instructions changed by `f` (same payer, blockhash and lookup tables), unsigned. */
export function rewrite(r: Recorded, f: (ixs: TransactionInstruction[]) => TransactionInstruction[]): Recorded {
  const tables = r.tx.message.addressTableLookups.map((l) => new AddressLookupTableAccount({ key: l.accountKey, state: { deactivationSlot: 0xffff_ffff_ffff_ffffn, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: r.tables.get(l.accountKey.toBase58())!.map((a) => new PublicKey(a)) } }));
  const m = TransactionMessage.decompile(r.tx.message, { addressLookupTableAccounts: tables });
  const next = new TransactionMessage({ payerKey: m.payerKey, recentBlockhash: m.recentBlockhash, instructions: f([...m.instructions]) });
  const message = r.tx.version === 'legacy' ? next.compileToLegacyMessage() : next.compileToV0Message(tables);
  return { ...copy(r), tx: new VersionedTransaction(message) };
}

/** The top-level instruction at `index` with its data changed by `f`. */
export function rewriteData(r: Recorded, index: number, f: (data: Buffer) => Buffer): Recorded {
  return rewrite(r, (ixs) => ixs.map((ix, i) => (i === index ? new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data: f(Buffer.from(ix.data)) }) : ix)));
}

/** The top-level instruction at `index` naming `to` where it named `from`. */
export function replaceAccount(r: Recorded, index: number, from: string, to: string): Recorded {
  return rewrite(r, (ixs) => ixs.map((ix, i) => (i === index ? new TransactionInstruction({ programId: ix.programId, data: ix.data, keys: ix.keys.map((k) => (k.pubkey.toBase58() === from ? { ...k, pubkey: new PublicKey(to) } : k)) }) : ix)));
}

/**
 * An extra top-level instruction at the end: the wallet pays `to` (the stranger by default) `lamports` (the node
 * would show it as the top-level transfer it is, with no inner instructions, the wallet's lamports after lower by
 * that much and `to`'s higher).
 */
export function extraTransfer(r: Recorded, lamports: bigint, to = STRANGER): Recorded {
  const from = r.wallet;
  const out = rewrite(r, (ixs) => [...ixs, SystemProgram.transfer({ fromPubkey: from, toPubkey: new PublicKey(to), lamports })]);
  const post = out.post as Map<string, AccountSnapshot | null>;
  const after = post.get(from.toBase58());
  if (!after) throw new Error('the wallet has no state after the transaction');
  post.set(from.toBase58(), { ...after, lamports: after.lamports - lamports });
  const theirs = post.get(to);
  post.set(to, theirs ? { ...theirs, lamports: theirs.lamports + lamports } : { lamports, owner: SystemProgram.programId.toBase58(), data: new Uint8Array(0) });
  return out;
}

/** The index of the top-level instruction of `program` (the only one). */
export function indexOf(r: Recorded, program: string): number {
  const keys = r.tx.message.staticAccountKeys.map((k) => k.toBase58());
  const found = r.tx.message.compiledInstructions.flatMap((ix, i) => (keys[ix.programIdIndex] === program ? [i] : []));
  if (found.length !== 1) throw new Error(`${r.fixture.id}: ${found.length} top-level instructions of ${program}`);
  return found[0]!;
}
