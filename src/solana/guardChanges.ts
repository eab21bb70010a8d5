import bs58 from 'bs58';
import type { PublicKey } from '@solana/web3.js';
import { WSOL_MINT } from '../lib/mints.js';
import { PROGRAM_IDS } from './programs.js';

/** One account as the guard sees it before or after a simulation. `null`: the account does not exist. */
export interface AccountSnapshot {
  lamports: bigint;
  /** Owning program, base58. */
  owner: string;
  data: Uint8Array;
  /** Whether it holds a program (unknown reads as false). */
  executable?: boolean;
}

/** Accounts by base58 address. A missing key and a `null` value both mean "no such account". */
export type AccountStates = ReadonlyMap<string, AccountSnapshot | null>;

/** What a transaction does to the wallet, from the pre- and post-simulation states. */
export interface WalletChanges {
  /**
   * Lamports gained (positive) or spent (negative) by the wallet account, plus the rent moving into or out of its
   * token accounts (created, closed, or given away). Wrapped SOL held in native token accounts is not counted
   * here: it is in `tokens` under the wSOL mint.
   */
  lamports: bigint;
  /** Net change of the wallet's token balances per mint, base units; mints with no change are left out. */
  tokens: Array<{ mint: string; delta: bigint }>;
}

/** An authority over one of the wallet's accounts that a transaction would give away. */
export interface AuthorityChange {
  /** The account, base58. */
  account: string;
  /** Its mint (null for the wallet's own system account). */
  mint: string | null;
  kind: 'owner' | 'delegate' | 'close-authority' | 'state' | 'wallet-owner' | 'wallet-data' | 'wallet-executable';
  from: string | null;
  to: string | null;
}

/** The fields of an SPL Token / Token-2022 account the guard needs. */
export interface TokenAccountFields {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  delegatedAmount: bigint;
  isNative: boolean;
  closeAuthority: string | null;
  /** 1 initialised, 2 frozen. */
  state: number;
}

const ACCOUNT_LEN = 165;
const MULTISIG_LEN = 355;
const ACCOUNT_TYPE_ACCOUNT = 2;

/**
 * Token accounts decoded already, by snapshot: the guard asks about the same accounts many times (the flows, the
 * changes, the authorities, the wallet check), and each decode writes two to four base58 addresses. A snapshot
 * whose lamports, owner or data array was replaced since is decoded again; the guard never writes into the bytes of
 * a snapshot it read. Callers get a copy, so the cached fields cannot be changed through them.
 */
const decodedTokenAccounts = new WeakMap<AccountSnapshot, { lamports: bigint; owner: string; data: Uint8Array; fields: TokenAccountFields | null }>();

/** Decodes a token account (SPL Token, or Token-2022 with or without extensions); null for anything else. */
export function readTokenAccount(acc: AccountSnapshot | null | undefined): TokenAccountFields | null {
  if (!acc || acc.lamports === 0n) return null;
  const known = decodedTokenAccounts.get(acc);
  if (known && known.lamports === acc.lamports && known.owner === acc.owner && known.data === acc.data) return known.fields && { ...known.fields };
  const fields = decodeTokenAccount(acc);
  decodedTokenAccounts.set(acc, { lamports: acc.lamports, owner: acc.owner, data: acc.data, fields });
  return fields && { ...fields };
}

/**
 * The decimals of a mint account (SPL Token or Token-2022), or undefined when it is not one. Here rather than in
 * guardToken2022.ts (which re-exports it) because it needs no @solana/spl-token: the product checks and the guard's
 * swap rules use it, and they are loaded when the keeper starts, the package only on the guard's first check.
 */
export function mintDecimals(account: AccountSnapshot | null | undefined): number | undefined {
  if (!account || (account.owner !== PROGRAM_IDS.splToken && account.owner !== PROGRAM_IDS.token2022)) return undefined;
  // Mint layout: mint authority option (36), supply (8), decimals (1), is_initialized (1), freeze authority (36).
  if (account.data.length < 82 || account.data[45] !== 1) return undefined;
  return account.data[44];
}

function decodeTokenAccount(acc: AccountSnapshot): TokenAccountFields | null {
  const d = acc.data;
  if (acc.owner === PROGRAM_IDS.splToken) {
    if (d.length !== ACCOUNT_LEN) return null;
  } else if (acc.owner === PROGRAM_IDS.token2022) {
    if (d.length < ACCOUNT_LEN || d.length === MULTISIG_LEN) return null;
    if (d.length > ACCOUNT_LEN && d[ACCOUNT_LEN] !== ACCOUNT_TYPE_ACCOUNT) return null;
  } else {
    return null;
  }
  const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
  const state = d[108];
  if (state === 0) return null;
  const key = (offset: number) => bs58.encode(d.subarray(offset, offset + 32));
  const option = (offset: number) => view.getUint32(offset, true) !== 0;
  return {
    mint: key(0),
    owner: key(32),
    amount: view.getBigUint64(64, true),
    delegate: option(72) ? key(76) : null,
    isNative: option(109),
    delegatedAmount: view.getBigUint64(121, true),
    closeAuthority: option(129) ? key(133) : null,
    state: state ?? 0,
  };
}

/** A token account as it counts for the wallet: only while the wallet owns it. */
function walletHolding(acc: AccountSnapshot | null | undefined, wallet: string): { lamports: bigint; token: TokenAccountFields } | null {
  const token = readTokenAccount(acc);
  return acc && token && token.owner === wallet ? { lamports: acc.lamports, token } : null;
}

function addressesOf(pre: AccountStates, post: AccountStates): string[] {
  return [...new Set([...pre.keys(), ...post.keys()])];
}

/**
 * The wallet's lamport and per-mint token changes between two account states. The wallet's token accounts are
 * those whose owner field is the wallet before or after; an account counts only while the wallet owns it, so one
 * given to someone else counts as everything in it leaving. Rent in a token account counts as the wallet's
 * lamports; the wrapped amount of a native (wSOL) account counts as wSOL tokens.
 */
export function computeWalletChanges(pre: AccountStates, post: AccountStates, wallet: PublicKey | string): WalletChanges {
  const me = typeof wallet === 'string' ? wallet : wallet.toBase58();
  let lamports = (post.get(me)?.lamports ?? 0n) - (pre.get(me)?.lamports ?? 0n);
  const tokens = new Map<string, bigint>();
  const add = (mint: string, delta: bigint) => tokens.set(mint, (tokens.get(mint) ?? 0n) + delta);
  for (const address of addressesOf(pre, post)) {
    if (address === me) continue;
    const before = walletHolding(pre.get(address), me);
    const after = walletHolding(post.get(address), me);
    if (before) {
      lamports -= before.lamports - (before.token.isNative ? before.token.amount : 0n);
      add(before.token.mint, -before.token.amount);
    }
    if (after) {
      lamports += after.lamports - (after.token.isNative ? after.token.amount : 0n);
      add(after.token.mint, after.token.amount);
    }
  }
  return { lamports, tokens: [...tokens].filter(([, delta]) => delta !== 0n).map(([mint, delta]) => ({ mint, delta })) };
}

/**
 * Changes to the wallet's accounts beyond balances that the transaction would make: its system account assigned to
 * another program, given data or made executable (a wallet with data can never pay a fee again); a wallet token
 * account given to another owner; a delegate set, changed or allowed more; a close authority set to someone other
 * than the wallet (also on an account the wallet only receives in this transaction); an account frozen. Revoking a
 * delegate or a close authority is not a change that matters.
 */
export function findAuthorityChanges(pre: AccountStates, post: AccountStates, wallet: PublicKey | string): AuthorityChange[] {
  const me = typeof wallet === 'string' ? wallet : wallet.toBase58();
  const changes: AuthorityChange[] = [];
  const walletBefore = pre.get(me);
  const walletAfter = post.get(me);
  if (walletBefore && walletAfter && walletAfter.lamports > 0n) {
    if (walletAfter.owner !== walletBefore.owner) changes.push({ account: me, mint: null, kind: 'wallet-owner', from: walletBefore.owner, to: walletAfter.owner });
    if (!sameBytes(walletAfter.data, walletBefore.data)) changes.push({ account: me, mint: null, kind: 'wallet-data', from: `${walletBefore.data.length} bytes`, to: `${walletAfter.data.length} bytes` });
    if ((walletAfter.executable ?? false) !== (walletBefore.executable ?? false)) changes.push({ account: me, mint: null, kind: 'wallet-executable', from: String(walletBefore.executable ?? false), to: String(walletAfter.executable ?? false) });
  }
  for (const address of addressesOf(pre, post)) {
    if (address === me) continue;
    const before = readTokenAccount(pre.get(address));
    const after = readTokenAccount(post.get(address));
    const ownedBefore = before?.owner === me;
    if (before && ownedBefore && after && after.owner !== me) {
      changes.push({ account: address, mint: after.mint, kind: 'owner', from: me, to: after.owner });
    }
    if (!after || after.owner !== me) continue;
    const prior = ownedBefore ? before : null;
    const delegateGranted = prior === null || prior.delegate !== after.delegate || after.delegatedAmount > prior.delegatedAmount;
    if (after.delegate !== null && delegateGranted) {
      changes.push({ account: address, mint: after.mint, kind: 'delegate', from: prior?.delegate ?? null, to: after.delegate });
    }
    if (after.closeAuthority !== null && after.closeAuthority !== me && prior?.closeAuthority !== after.closeAuthority) {
      changes.push({ account: address, mint: after.mint, kind: 'close-authority', from: prior?.closeAuthority ?? null, to: after.closeAuthority });
    }
    if (after.state !== (prior?.state ?? 1)) changes.push({ account: address, mint: after.mint, kind: 'state', from: prior ? stateName(prior.state) : 'initialized', to: stateName(after.state) });
  }
  return changes;
}

function stateName(state: number): string {
  return state === 2 ? 'frozen' : state === 1 ? 'initialized' : `state ${state}`;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * SOL leaving the wallet, in lamports (negative when it gains): its lamport change plus its wSOL token change,
 * since wrapped and native SOL are the same money.
 */
export function solSpent(changes: WalletChanges): bigint {
  const wsol = changes.tokens.find((t) => t.mint === WSOL_MINT)?.delta ?? 0n;
  return -(changes.lamports + wsol);
}
