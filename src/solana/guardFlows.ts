import { WSOL_MINT } from '../lib/mints.js';
import { readTokenAccount, type AccountStates } from './guardChanges.js';
import type { FlowEvent } from './guardInstructions.js';
import type { CreatedAccount, ProductTerms, SpendRule } from './guardTypes.js';

/** The asset key of SOL: native lamports and wrapped SOL are the same money. */
export const SOL_ASSET = WSOL_MINT;

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
  /**
   * What the product instruction names (its check's ProductTerms): the only escrows a deposit may go into, the only
   * accounts the wallet may pay to create besides its own, and the accounts whose payouts must reach the wallet.
   * Without it (a swap) none of these exist.
   */
  product?: ProductTerms | undefined;
  /** Rent-exempt minimum of an account of `space` bytes, lamports. */
  rentExempt(space: bigint): bigint;
  /** Size of a token account of `mint` as its token program creates it (its extensions), bytes; undefined when the mint is unknown. */
  tokenAccountSpace(mint: string): bigint | undefined;
  /**
   * A swap's output mint: the aggregator may take its fee out of the wallet's own account of it (a `route` with a fee
   * in the output mint transfers it by CPI, signed by the wallet). Counted as `swapFee`, bounded by the fee table
   * (checkSwapInflow), never judged a payment to a stranger.
   */
  swapFeeMint?: string | undefined;
}

/** A rule the flows break, with a message naming accounts and base-unit amounts. */
export interface FlowViolation {
  rule: 'destination' | 'sol-outflow' | 'token-outflow' | 'escrow-amount' | 'close-account' | 'wallet-account' | 'token-account' | 'unknown-instruction' | 'created-account' | 'payout-destination';
  message: string;
}

/** What left the wallet, by kind, once every event was followed. */
export interface FlowSummary {
  violations: FlowViolation[];
  /** Lamports tipped to tip accounts (counted as priority fee). */
  tipsLamports: bigint;
  /** Paid to the swap's counterparty, per asset. */
  toCounterparty: Map<string, bigint>;
  /** Moved into the escrow the product instruction names, per asset. */
  toEscrow: Map<string, bigint>;
  /** Rent paid for the accounts the product instruction names (its order, position or invite, their escrows). */
  createdRentLamports: bigint;
  burned: Map<string, bigint>;
  /** The swap's fee the aggregator took out of the wallet's account of the output mint (FlowPolicy.swapFeeMint). */
  swapFee: bigint;
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
 * back to the wallet's own accounts, to a tip account, to the swap's counterparty in the input asset, into the escrow
 * the product instruction names, into the rent of an account it names, or burnt within the allowance. Anything else
 * is a violation, down to one lamport. What leaves the accounts a payout comes out of must reach the wallet.
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
  const payers = new Set(p.product?.payers ?? []);
  const ownMints = new Set(p.product?.ownMints ?? []);
  const violations: FlowViolation[] = [];
  const outflows: Outflow[] = [];
  const paidOut: Array<{ from: string; to: string; amount: bigint | null; mint: string; minted?: boolean }> = [];

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
        if (payers.has(e.from) && e.from !== e.to) paidOut.push({ from: e.from, to: e.to, amount: e.amount, mint: h?.mint ?? '(unknown mint)' });
        break;
      }
      case 'burn': {
        const h = holding(e.account);
        if (h?.owner === wallet) outflows.push({ asset: h.mint, to: null, amount: e.amount, via: 'burn', top: e.top });
        break;
      }
      case 'mint':
        if (ownMints.has(e.mint)) paidOut.push({ from: `the mint ${e.mint}`, to: e.to, amount: e.amount, mint: e.mint, minted: true });
        break;
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
        if (payers.has(e.account)) paidOut.push({ from: e.account, to: e.destination, amount: null, mint: h?.mint ?? '(unknown mint)' });
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
  const summary: FlowSummary = { violations, tipsLamports: 0n, toCounterparty: new Map(), toEscrow: new Map(), createdRentLamports: 0n, burned: new Map(), swapFee: 0n };
  const add = (m: Map<string, bigint>, k: string, v: bigint) => m.set(k, (m.get(k) ?? 0n) + v);
  const spend = p.spend;
  const escrows = new Set(p.product?.escrows ?? []);
  // A product funded by a swap: the swap takes the intent's mint, the escrow receives the swap's.
  const funding = p.product?.funding;
  const escrowMint = spend.kind === 'escrow' ? (funding?.outputMint ?? spend.mint) : undefined;
  const created = new Set<string>();
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
    if (o.via === 'create') {
      const problem = createProblem(o, p.product?.creates.find((c) => c.address === to), created, p);
      if (problem) violations.push({ rule: 'created-account', message: problem });
      else summary.createdRentLamports += o.amount;
      created.add(to);
      continue;
    }
    if (spend.kind === 'counterparty' && o.asset === spend.mint && (p.swapPrograms.has(o.top) || p.counterparties.has(holding(to)?.owner ?? to))) {
      add(summary.toCounterparty, o.asset, o.amount);
      continue;
    }
    if (p.swapFeeMint !== undefined && o.asset === p.swapFeeMint && o.via === 'token' && p.swapPrograms.has(o.top)) {
      summary.swapFee += o.amount;
      continue;
    }
    if (funding && o.asset === funding.inputMint && o.top === funding.program) {
      add(summary.toCounterparty, o.asset, o.amount);
      continue;
    }
    if (spend.kind === 'escrow' && o.asset === escrowMint && escrows.has(to)) {
      add(summary.toEscrow, o.asset, o.amount);
      continue;
    }
    const what = o.asset === SOL_ASSET ? `${o.amount} lamports of SOL` : `${o.amount} base units of ${o.asset}`;
    const named = escrows.size > 0 ? ` (the instruction's escrow is ${[...escrows].join(', ')})` : '';
    violations.push({ rule: 'destination', message: `${what} would go from the wallet to ${to}, which the intent does not allow${named}` });
  }
  // A payout's source (an escrow, a vault) pays only the wallet, or the venue's declared co-signer that forwards it
  // (the simulator's keeper unwraps SOL that way); whether the wallet got it all is the payout rules' to judge. The
  // share token a deposit mints goes to the wallet alone.
  for (const out of paidOut) {
    if (endsWithWallet(out.to)) continue;
    if (out.minted) {
      violations.push({ rule: 'payout-destination', message: `${out.amount} base units of ${out.mint} would be minted into ${out.to}, not the wallet's own account (diluting what the wallet holds of it)` });
      continue;
    }
    if (p.counterparties.has(holding(out.to)?.owner ?? out.to)) continue;
    const what = out.amount === null ? `everything in ${out.from} (mint ${out.mint}), closed,` : `${out.amount} base units of ${out.mint} from ${out.from}`;
    violations.push({ rule: 'payout-destination', message: `${what} would go to ${out.to}, not the wallet's own account` });
  }
  if (spend.kind === 'counterparty') {
    const paid = summary.toCounterparty.get(spend.mint) ?? 0n;
    if (paid > spend.max) violations.push({ rule: spend.mint === SOL_ASSET ? 'sol-outflow' : 'token-outflow', message: `the swap would pay ${paid} base units of ${spend.mint}; the intent allows ${spend.max}` });
  }
  if (spend.kind === 'escrow') {
    const [mint, amount] = funding ? [funding.outputMint, funding.deposit] : [spend.mint, spend.amount];
    const paid = summary.toEscrow.get(mint) ?? 0n;
    if (spend.upTo ? paid > amount || paid === 0n : paid !== amount) {
      violations.push({ rule: 'escrow-amount', message: `${paid} base units of ${mint} would go into the escrow ${[...escrows].join(', ') || '(none named)'}; ${funding ? 'the instruction, held to the intent, deposits' : 'the intent says'} ${spend.upTo ? 'at most' : 'exactly'} ${amount}` });
    }
  }
  if (funding) {
    const swapped = summary.toCounterparty.get(funding.inputMint) ?? 0n;
    if (swapped > funding.most) violations.push({ rule: 'token-outflow', message: `the swap funding the deposit would take ${swapped} base units of ${funding.inputMint}; the intent allows ${funding.most}` });
  }
  if (p.burn) {
    const burnt = summary.burned.get(p.burn.mint) ?? 0n;
    if (burnt > p.burn.max) violations.push({ rule: 'token-outflow', message: `${burnt} base units of ${p.burn.mint} would be burnt; at most ${p.burn.max} may` });
  }
  return summary;
}

/**
 * Why the wallet may not pay to create an account, or undefined when it may: only an account the product
 * instruction names, once, owned by the program its type says, of that type's size and funded with exactly the rent
 * of that size (more would be locked where only the program can return it).
 */
function createProblem(o: Outflow, named: CreatedAccount | undefined, created: ReadonlySet<string>, p: FlowPolicy): string | undefined {
  const to = o.to!;
  const space = o.space ?? 0n;
  const paid = `${o.amount} lamports of the wallet's would create ${to} (${space} bytes, owned by ${o.owner ?? '?'})`;
  if (!named) return `${paid}, an account the product instruction does not name`;
  if (created.has(to)) return `${paid} a second time`;
  if (o.owner !== named.owner) return `${paid}; the ${named.what} is owned by ${named.owner}`;
  if ('tokenAccountOf' in named.space) {
    const want = p.tokenAccountSpace(named.space.tokenAccountOf);
    if (want === undefined) return `${paid}; the size of a token account of ${named.space.tokenAccountOf} is unknown (no such mint)`;
    if (space !== want) return `${paid}; the ${named.what} (a token account of ${named.space.tokenAccountOf}) is ${want} bytes`;
  } else if (space < named.space.min || space > named.space.max) {
    return `${paid}; the ${named.what} is ${named.space.min === named.space.max ? `${named.space.min}` : `${named.space.min} to ${named.space.max}`} bytes`;
  }
  const rent = p.rentExempt(space);
  if (o.amount !== rent) return `${paid}; the rent of ${space} bytes is ${rent}`;
  return undefined;
}
