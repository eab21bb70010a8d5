import { mintDecimals, readTokenAccount, solSpent, type AccountStates, type AuthorityChange, type WalletChanges } from './guardChanges.js';
import type { DecodedMessage } from './guardDecode.js';
import { SOL_ASSET, type FlowSummary } from './guardFlows.js';
import type { ExpiryCheck, GuardPolicy, GuardViolation, Payout, SpendRule } from './guardTypes.js';
import { maximumSwapInput, minimumSwapOutput, type SwapTerms } from './swapValue.js';

// The guard's rules that read only what the simulation and the static decode found (no I/O). guard.ts runs them.

/**
 * Fee payer, signers, programs, durable nonce, the priority fee and the expiry: what the message says before it runs.
 * The wallet is the fee payer, or (policy.sponsoredFees: Ultra's RFQ and gasless routes) a required signer beside
 * the account that pays; the only other signers are that fee payer and the declared co-signers.
 */
export function checkStatic(decoded: DecodedMessage, policy: GuardPolicy, wallet: string, violations: GuardViolation[]): void {
  const sponsor = decoded.feePayer !== wallet && policy.sponsoredFees === true ? decoded.feePayer : undefined;
  if (decoded.feePayer !== wallet && !sponsor) violations.push({ rule: 'fee-payer', message: `the fee payer is ${decoded.feePayer}, not the wallet ${wallet}` });
  if (sponsor && !decoded.signers.includes(wallet)) violations.push({ rule: 'signer', message: `the wallet ${wallet} is not a required signer of a transaction ${sponsor} pays for` });
  for (const signer of decoded.signers) {
    if (signer !== wallet && signer !== sponsor && !policy.coSigners.has(signer)) violations.push({ rule: 'signer', message: `the transaction needs the signature of ${signer}, neither the wallet${sponsor ? ', the fee payer' : ''} nor a declared co-signer of the venue` });
  }
  for (const program of decoded.programs) {
    if (!policy.allowedPrograms.has(program)) violations.push({ rule: 'program-not-allowed', message: `program ${program} is not allowed for ${policy.area} transactions` });
  }
  if (decoded.durableNonce) violations.push({ rule: 'durable-nonce', message: 'the transaction advances a durable nonce, so it would never expire' });
  if (decoded.priorityFeeLamports > policy.maxPriorityFeeLamports) {
    violations.push({ rule: 'priority-fee', message: `a priority fee of up to ${decoded.priorityFeeLamports} lamports exceeds the cap of ${policy.maxPriorityFeeLamports} (risk.maxPriorityFeeLamports)` });
  }
  if (policy.expiry) checkExpiry(decoded, policy.expiry, violations);
}

/** The expiries the instructions carry, none later than the bound (a held signed transaction lands no later). */
function checkExpiry(decoded: DecodedMessage, expiry: ExpiryCheck, violations: GuardViolation[]): void {
  let found: Array<bigint | string>;
  try {
    found = expiry.read(decoded.instructions);
  } catch (err) {
    found = [err instanceof Error ? err.message : String(err)];
  }
  for (const e of found) {
    if (typeof e === 'string') violations.push({ rule: 'quote-expiry', message: `the transaction's expiry cannot be read: ${e}` });
    else if (e > expiry.latest) violations.push({ rule: 'quote-expiry', message: `the transaction stays landable until ${new Date(Number(e) * 1000).toISOString()} (unix ${e}), after the latest allowed ${new Date(Number(expiry.latest) * 1000).toISOString()} (${expiry.source})` });
  }
}

/**
 * A sponsored message as the balance rules see it: the wallet is charged none of its fees (another account pays),
 * so its SOL may not fall by them either.
 */
export function walletCharged(decoded: DecodedMessage): DecodedMessage {
  return { ...decoded, baseFeeLamports: 0n, priorityFeeLamports: 0n, feeLamports: 0n };
}

/**
 * The wallet's net balances, a second line behind the flows: no mint may fall by more than the intent lets leave,
 * and SOL may fall by no more than the signature fees, the priority fee and tips, the escrow's rent and whatever
 * SOL the intent itself sends. Rent of accounts the wallet owns afterwards stays the wallet's, so it is not spent.
 */
export function checkBalances(changes: WalletChanges, decoded: DecodedMessage, flows: FlowSummary, policy: GuardPolicy, violations: GuardViolation[]): void {
  const allowed = (mint: string): bigint => {
    const s = policy.spend;
    let n = 0n;
    if (s.kind === 'counterparty' && s.mint === mint) n += s.max;
    if (s.kind === 'escrow' && s.mint === mint) n += s.amount;
    if (policy.burn?.mint === mint) n += policy.burn.max;
    return n;
  };
  for (const { mint, delta } of changes.tokens) {
    if (mint === SOL_ASSET || delta >= 0n) continue;
    if (-delta > allowed(mint)) violations.push({ rule: 'token-outflow', message: `${-delta} base units of ${mint} would leave the wallet; the intent allows ${allowed(mint)}` });
  }
  const spent = solSpent(changes);
  const fees = decoded.baseFeeLamports + decoded.priorityFeeLamports + flows.tipsLamports;
  const solAllowed = fees + flows.createdRentLamports + allowed(SOL_ASSET);
  if (spent > solAllowed) {
    violations.push({ rule: 'sol-outflow', message: `${spent} lamports would leave the wallet; at most ${solAllowed} may (fees ${fees}, rent of the accounts the instruction creates ${flows.createdRentLamports}, the intent's SOL ${allowed(SOL_ASSET)})` });
  }
}

/**
 * A deposit stays where it went: each escrow the product instruction names must end the transaction holding at least
 * what the wallet paid into it more than it held before. A transaction that deposits and, in the same breath, moves
 * the escrow's tokens on (its delegate or the program paying a stranger) leaves the wallet's money elsewhere though
 * every outflow of the wallet went to the right account. An escrow that is no token account (a native-SOL send
 * invite, which holds the lamports itself) counts its lamports.
 */
export function checkEscrowsKept(flows: FlowSummary, escrows: readonly string[], pre: AccountStates, post: AccountStates, violations: GuardViolation[]): void {
  const paid = [...flows.toEscrow.values()].reduce((a, b) => a + b, 0n);
  if (paid === 0n || escrows.length === 0) return;
  const gained = (e: string): bigint => {
    const after = post.get(e);
    if (readTokenAccount(after) || !after) return (readTokenAccount(after)?.amount ?? 0n) - (readTokenAccount(pre.get(e))?.amount ?? 0n);
    return after.lamports - (pre.get(e)?.lamports ?? 0n);
  };
  const kept = escrows.reduce((sum, e) => sum + gained(e), 0n);
  if (kept < paid) violations.push({ rule: 'escrow-amount', message: `the wallet pays ${paid} base units into the escrow ${escrows.join(', ')}, which would end the transaction holding only ${kept} more: the rest leaves it in the same transaction` });
}

/**
 * What the product instruction must pay the wallet (a refund, a withdrawal, a claim, shares), on the simulated
 * balances of the wallet's own accounts: each mint's net gain at least its least. SOL counts lamports and wrapped
 * SOL together, before the fees the transaction pays (which the fee rules bound on their own).
 */
export function checkPayouts(changes: WalletChanges, decoded: DecodedMessage, flows: FlowSummary, payouts: readonly Payout[], violations: GuardViolation[]): void {
  const wanted = new Map<string, { least: bigint; what: string[] }>();
  for (const p of payouts) {
    // Nothing owed (an escrow already empty) asks nothing of the balances: an honest transaction's rent or fee is no shortfall.
    if (p.least <= 0n) continue;
    const w = wanted.get(p.mint) ?? { least: 0n, what: [] };
    wanted.set(p.mint, { least: w.least + p.least, what: [...w.what, p.what] });
  }
  for (const [mint, { least, what }] of wanted) {
    const gained = mint === SOL_ASSET ? -solSpent(changes) + decoded.baseFeeLamports + decoded.priorityFeeLamports + flows.tipsLamports : (changes.tokens.find((t) => t.mint === mint)?.delta ?? 0n);
    if (gained < least) violations.push({ rule: 'payout-short', message: `the wallet would gain ${gained} base units of ${mint === SOL_ASSET ? 'SOL (lamports and wrapped)' : mint}; at least ${least} must arrive (${what.join('; ')})` });
  }
}

/**
 * A swap's inflow: in the intent's output mint, and at least what the amount is worth at the feed's prices less the
 * bounds (ExactIn), or at least the exact amount asked (ExactOut).
 */
export function checkSwapInflow(changes: WalletChanges, decoded: DecodedMessage, flows: FlowSummary, terms: SwapTerms, pre: AccountStates, violations: GuardViolation[]): void {
  const least = minimumSwapOutput(terms, { input: mintDecimals(pre.get(terms.inputMint)), output: mintDecimals(pre.get(terms.outputMint)) });
  // SOL output: the net SOL gain is after the fees the transaction pays, which the fee checks bound on their own.
  const gained = terms.outputMint === SOL_ASSET ? -solSpent(changes) + decoded.baseFeeLamports + decoded.priorityFeeLamports + flows.tipsLamports : (changes.tokens.find((t) => t.mint === terms.outputMint)?.delta ?? 0n);
  // A fee the route took out of the wallet's output (after paying it in): at most the fee table's share of what
  // arrived before it (the gain is already net of it, so the bound below holds the rest).
  if (flows.swapFee > 0n && flows.swapFee * 10_000n > (gained + flows.swapFee) * BigInt(terms.feeBps)) {
    violations.push({ rule: 'destination', message: `the route would take ${flows.swapFee} base units of ${terms.outputMint} out of the wallet's output as a fee: more than the ${terms.feeBps} bps of the ${gained + flows.swapFee} it received that the fee table allows` });
  }
  if (gained >= least) return;
  const other = changes.tokens.filter((t) => t.delta > 0n && t.mint !== terms.outputMint && t.mint !== terms.inputMint && t.mint !== SOL_ASSET);
  // Another mint arrived while too little of the asked one did: the venue paid out the wrong token (a sponsor's rent
  // for the account it arrived in may count as a few lamports gained, so "nothing of the output" is not the test).
  if (other.length > 0) {
    violations.push({ rule: 'output-mint', message: `the wallet would receive ${other.map((t) => `${t.delta} of ${t.mint}`).join(', ')} instead of ${terms.outputMint}` });
    return;
  }
  if (terms.swapMode === 'ExactOut') {
    violations.push({ rule: 'inflow-short', message: `the wallet would gain ${gained} base units of ${terms.outputMint}; the ExactOut intent asks for exactly ${terms.amount}` });
    return;
  }
  violations.push({ rule: 'inflow-short', message: `the wallet would gain ${gained} base units of ${terms.outputMint}; the intent's ${terms.amount} of ${terms.inputMint} is worth at least ${least} at the feed's prices less ${terms.slippageBps} bps slippage and ${terms.feeBps} bps fees` });
}

export function describeAccountChange(c: AuthorityChange): GuardViolation {
  if (c.kind === 'wallet-owner' || c.kind === 'wallet-data' || c.kind === 'wallet-executable') {
    const what = { 'wallet-owner': 'owning program', 'wallet-data': 'data', 'wallet-executable': 'executable flag' }[c.kind];
    return { rule: 'wallet-account', message: `the ${what} of the wallet ${c.account} would change from ${c.from ?? 'none'} to ${c.to ?? 'none'}` };
  }
  const what = { owner: 'owner', delegate: 'delegate', 'close-authority': 'close authority', state: 'state' }[c.kind];
  return { rule: 'token-account', message: `the ${what} of token account ${c.account} (mint ${c.mint}) would change from ${c.from ?? 'none'} to ${c.to ?? 'none'}` };
}

/**
 * What a swap may pay its counterparty: an ExactIn swap the intent's amount; an ExactOut swap (whose amount is the
 * output) what that output is worth at the feed's prices plus the slippage bound and the fee, in the input mint.
 */
export function swapSpend(spend: SpendRule, terms: SwapTerms | undefined, pre: AccountStates): SpendRule {
  if (!terms || terms.swapMode !== 'ExactOut' || spend.kind !== 'counterparty' || spend.mint !== terms.inputMint) return spend;
  return { ...spend, max: maximumSwapInput(terms, { input: mintDecimals(pre.get(terms.inputMint)), output: mintDecimals(pre.get(terms.outputMint)) }) };
}
