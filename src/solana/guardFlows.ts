import { PublicKey } from '@solana/web3.js';
import { WSOL_MINT } from '../lib/mints.js';
import { readTokenAccount, type AccountStates } from './guardChanges.js';
import type { FlowEvent } from './guardInstructions.js';

/** The asset key of SOL: native lamports and wrapped SOL are the same money. */
export const SOL_ASSET = WSOL_MINT;

/** Where the wallet's funds may go, from the intent alone (ARCHITECTURE.md §4). */
export type SpendRule =
  /** Nothing may leave (cancels, claims, withdrawals, clawbacks): only fees. */
  | { kind: 'nothing' }
  /**
   * A swap: up to `max` of `mint` may go to the counterparty: the venue's declared co-signers (a market maker that
   * signs its side) or whichever accounts the aggregator's own program pays on the wallet's behalf (its CPIs).
   */
  | { kind: 'counterparty'; mint: string; max: bigint }
  /**
   * A product order: exactly `amount` of `mint` goes into escrows of `program`, plus the rent of its accounts; with
   * `upTo`, at most `amount` (a lend mint of exact shares pays what they cost at the program's exchange price).
   */
  | { kind: 'escrow'; mint: string; amount: bigint; program: string; upTo?: boolean };

/** What the flow check needs besides the events. */
export interface FlowPolicy {
  wallet: string;
  spend: SpendRule;
  /** Accounts whose lamport tips count as priority fee (Jito's tip accounts). */
  tipAccounts: ReadonlySet<string>;
  /** The venue's declared co-signers: a swap may pay them (or token accounts they own). */
  counterparties: ReadonlySet<string>;
  /** Programs whose CPIs pay a swap's counterparty (the area's aggregator programs). */
  swapPrograms: ReadonlySet<string>;
  /** The wallet's native (wSOL) account may be closed to the wallet (the swap unwraps SOL). */
  mayUnwrapSol: boolean;
  /** A lend withdrawal burns at most `max` of its share token. */
  burn?: { mint: string; max: bigint } | undefined;
  /** Escrow authorities derived by the caller from the area's program with its published seeds. */
  escrowAuthorities?: ReadonlySet<string> | undefined;
  /** Rent-exempt minimum of an account of `space` bytes, lamports. */
  rentExempt(space: bigint): bigint;
}

/** A rule the flows break, with a message naming accounts and base-unit amounts. */
export interface FlowViolation {
  rule: 'destination' | 'sol-outflow' | 'token-outflow' | 'escrow-amount' | 'close-account' | 'wallet-account' | 'token-account' | 'unknown-instruction';
  message: string;
}

/** What left the wallet, by kind, once every event was followed. */
export interface FlowSummary {
  violations: FlowViolation[];
  /** Lamports tipped to tip accounts (counted as priority fee). */
  tipsLamports: bigint;
  /** Paid to the swap's counterparty, per asset. */
  toCounterparty: Map<string, bigint>;
  /** Moved into escrows of the area's program, per asset. */
  toEscrow: Map<string, bigint>;
  /** Rent paid for the escrow's own accounts. */
  escrowRentLamports: bigint;
  burned: Map<string, bigint>;
}

interface Holding {
  mint: string;
  owner: string;
  native: boolean;
}

interface Outflow {
  asset: string;
  to: string | null;
  amount: bigint;
  via: 'transfer' | 'create' | 'token' | 'burn';
  /** The top-level program whose instruction (or CPI) moved it. */
  top: string;
  space?: bigint;
  owner?: string;
}

/** A flow event with the top-level program it happened under (the program itself, or the one that made the CPI). */
export type TracedEvent = FlowEvent & { top: string };

/**
 * Follows every event in execution order, tracking which token accounts the wallet holds (as they are created,
 * given away and closed), and checks that each lamport and token leaving the wallet goes where the intent allows:
 * back to the wallet's own accounts, to a tip account, to the swap's counterparty in the input asset, into an
 * escrow of the area's program, or burnt within the allowance. Anything else is a violation, down to one lamport.
 */
export function checkFlows(events: readonly TracedEvent[], pre: AccountStates, post: AccountStates, p: FlowPolicy): FlowSummary {
  const { wallet } = p;
  const holdings = new Map<string, Holding>();
  const closedTo = new Map<string, string>();
  const holding = (address: string): Holding | undefined => {
    if (!holdings.has(address) && !closedTo.has(address)) {
      const t = readTokenAccount(pre.get(address)) ?? readTokenAccount(post.get(address));
      if (t) holdings.set(address, { mint: t.mint, owner: t.owner, native: t.isNative || t.mint === WSOL_MINT });
    }
    return holdings.get(address);
  };
  const walletHolds = (address: string): boolean => address === wallet || holding(address)?.owner === wallet;
  const violations: FlowViolation[] = [];
  const outflows: Outflow[] = [];

  for (const e of events) {
    switch (e.kind) {
      case 'lamports':
        if (e.from === wallet && e.to !== wallet) outflows.push({ asset: SOL_ASSET, to: e.to, amount: e.amount, via: 'transfer', top: e.top });
        break;
      case 'create':
        if (e.from === wallet) outflows.push({ asset: SOL_ASSET, to: e.account, amount: e.amount, via: 'create', top: e.top, space: e.space, owner: e.owner });
        break;
      case 'tokens': {
        const h = holding(e.from);
        if (h?.owner === wallet && e.from !== e.to) outflows.push({ asset: h.native ? SOL_ASSET : h.mint, to: e.to, amount: e.amount, via: 'token', top: e.top });
        break;
      }
      case 'burn': {
        const h = holding(e.account);
        if (h?.owner === wallet) outflows.push({ asset: h.mint, to: null, amount: e.amount, via: 'burn', top: e.top });
        break;
      }
      case 'init':
        closedTo.delete(e.account);
        holdings.set(e.account, { mint: e.mint, owner: e.owner, native: e.mint === WSOL_MINT });
        break;
      case 'close': {
        const h = holding(e.account);
        if (h?.owner === wallet) {
          if (!walletHolds(e.destination)) {
            violations.push({ rule: 'close-account', message: `token account ${e.account} (mint ${h.mint}) would be closed with its rent${h.native ? ' and wrapped SOL' : ''} going to ${e.destination}, not the wallet` });
          } else if (!(h.native && p.mayUnwrapSol) && pre.get(e.account)) {
            violations.push({ rule: 'close-account', message: `token account ${e.account} (mint ${h.mint}) would be closed, which the intent does not ask for` });
          }
        }
        holdings.delete(e.account);
        closedTo.set(e.account, e.destination);
        break;
      }
      case 'system-change':
        if (e.account === wallet) violations.push({ rule: 'wallet-account', message: `${e.what} on the wallet's own account would change it beyond its lamports (it could no longer pay fees)` });
        break;
      case 'token-change': {
        const h = holding(e.account);
        if (h?.owner === wallet) {
          violations.push({ rule: 'token-account', message: `${e.what} on the wallet's token account ${e.account} (mint ${h.mint}) would hand out an authority over it` });
          if (e.newOwner !== undefined) h.owner = e.newOwner ?? '(none)';
        }
        break;
      }
      case 'unknown':
        if (e.accounts.some(walletHolds)) violations.push({ rule: 'unknown-instruction', message: `an instruction the guard cannot read (${e.what} of ${e.program}) touches the wallet's accounts` });
        break;
    }
  }

  // Where each outflow ended: judged once the whole transaction ran (a created account is initialised after it is
  // funded; a temporary wSOL account is closed back to the wallet at the end).
  const endsWithWallet = (address: string): boolean => {
    if (address === wallet || holding(address)?.owner === wallet) return true;
    const dest = closedTo.get(address);
    return dest !== undefined && (dest === wallet || holding(dest)?.owner === wallet);
  };
  const summary: FlowSummary = { violations, tipsLamports: 0n, toCounterparty: new Map(), toEscrow: new Map(), escrowRentLamports: 0n, burned: new Map() };
  const add = (m: Map<string, bigint>, k: string, v: bigint) => m.set(k, (m.get(k) ?? 0n) + v);
  const spend = p.spend;
  for (const o of outflows) {
    if (o.to !== null && endsWithWallet(o.to)) continue;
    if (o.to !== null && o.asset === SOL_ASSET && o.via === 'transfer' && p.tipAccounts.has(o.to)) {
      summary.tipsLamports += o.amount;
      continue;
    }
    if (o.via === 'burn') {
      if (p.burn && p.burn.mint === o.asset) add(summary.burned, o.asset, o.amount);
      else violations.push({ rule: 'destination', message: `${o.amount} base units of ${o.asset} would be burnt from the wallet` });
      continue;
    }
    const to = o.to!;
    if (spend.kind === 'counterparty' && o.asset === spend.mint && o.via !== 'create' && (p.swapPrograms.has(o.top) || p.counterparties.has(holding(to)?.owner ?? to))) {
      add(summary.toCounterparty, o.asset, o.amount);
      continue;
    }
    if (spend.kind === 'escrow') {
      if (o.via === 'create' && isEscrowRent(o, spend.program, holding, post, p)) {
        summary.escrowRentLamports += o.amount;
        continue;
      }
      if (o.asset === spend.mint && isEscrow(to, spend.program, holding, post, p)) {
        add(summary.toEscrow, o.asset, o.amount);
        continue;
      }
    }
    const what = o.asset === SOL_ASSET ? `${o.amount} lamports of SOL` : `${o.amount} base units of ${o.asset}`;
    violations.push({ rule: 'destination', message: `${what} would go from the wallet to ${to}, which the intent does not allow${o.via === 'create' ? ' (rent of an account the wallet does not own afterwards)' : ''}` });
  }
  if (spend.kind === 'counterparty') {
    const paid = summary.toCounterparty.get(spend.mint) ?? 0n;
    if (paid > spend.max) violations.push({ rule: spend.mint === SOL_ASSET ? 'sol-outflow' : 'token-outflow', message: `the swap would pay ${paid} base units of ${spend.mint}; the intent allows ${spend.max}` });
  }
  if (spend.kind === 'escrow') {
    const paid = summary.toEscrow.get(spend.mint) ?? 0n;
    if (spend.upTo ? paid > spend.amount || paid === 0n : paid !== spend.amount) {
      violations.push({ rule: 'escrow-amount', message: `${paid} base units of ${spend.mint} would go into the ${spend.program} escrow; the intent says ${spend.upTo ? 'at most' : 'exactly'} ${spend.amount}` });
    }
  }
  if (p.burn) {
    const burnt = summary.burned.get(p.burn.mint) ?? 0n;
    if (burnt > p.burn.max) violations.push({ rule: 'token-outflow', message: `${burnt} base units of ${p.burn.mint} would be burnt; at most ${p.burn.max} may` });
  }
  return summary;
}

/**
 * An escrow of `program`: a token account whose authority is an address of that program (or, for SOL, an account
 * of the program itself). An address belongs to the program when the caller derived it from the program's
 * published seeds, or when it is off the ed25519 curve (no private key exists for it: only a program can sign for
 * it) and the program owns its account with data the program wrote.
 */
function isEscrow(to: string, program: string, holding: (a: string) => Holding | undefined, post: AccountStates, p: FlowPolicy): boolean {
  const authority = holding(to)?.owner ?? to;
  if (p.escrowAuthorities?.has(authority)) return true;
  return programAddress(authority, program, post);
}

/** Rent of an account the escrow needs: a new account the program owns, or a token account of an escrow authority. */
function isEscrowRent(o: Outflow, program: string, holding: (a: string) => Holding | undefined, post: AccountStates, p: FlowPolicy): boolean {
  const after = post.get(o.to!);
  const space = after ? BigInt(after.data.length) : (o.space ?? 0n);
  if (o.amount !== p.rentExempt(space)) return false;
  if (o.owner === program) return true;
  const authority = holding(o.to!)?.owner;
  return authority !== undefined && (p.escrowAuthorities?.has(authority) === true || programAddress(authority, program, post));
}

function programAddress(address: string, program: string, post: AccountStates): boolean {
  let key: PublicKey;
  try {
    key = new PublicKey(address);
  } catch {
    return false;
  }
  if (PublicKey.isOnCurve(key.toBytes())) return false;
  const acc = post.get(address);
  return acc !== undefined && acc !== null && acc.owner === program && acc.data.some((b) => b !== 0);
}
