// A swap whose aggregator takes its fee out of the wallet's own account of the output mint (Jupiter's `route` with a
// fee in the output mint transfers it by CPI, signed by the wallet: the landed PYUSD swap of the mainnet corpus pays
// one that way). The guard counts such a transfer, under the aggregator's instruction only, as the swap's fee and holds
// it to the fee table's share of what arrived; anything more, a fee the table does not allow (Metis: none), or the same
// transfer at the top level, is a payment to a stranger. Numbers by hand.
import { describe, expect, it } from 'vitest';
import { Keypair, PublicKey } from '@solana/web3.js';
import { ACCOUNT_SIZE, AccountLayout, AccountState, MINT_SIZE, MintLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { rentExemptLamports } from '../../src/solana/guard.js';
import type { AccountSnapshot } from '../../src/solana/guardChanges.js';
import { computeWalletChanges } from '../../src/solana/guardChanges.js';
import type { DecodedMessage } from '../../src/solana/guardDecode.js';
import { checkFlows, type TracedEvent } from '../../src/solana/guardFlows.js';
import type { FlowEvent } from '../../src/solana/guardInstructions.js';
import { checkSwapInflow } from '../../src/solana/guardRules.js';
import type { GuardViolation } from '../../src/solana/guardTypes.js';
import { PROGRAM_IDS, TIP_ACCOUNTS } from '../../src/solana/programs.js';
import type { SwapTerms } from '../../src/solana/swapValue.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const WALLET = Keypair.generate().publicKey.toBase58();
const WALLET_USDC = Keypair.generate().publicKey.toBase58();
const WALLET_JUP = Keypair.generate().publicKey.toBase58();
const POOL_JUP = Keypair.generate().publicKey.toBase58();
const POOL_USDC = Keypair.generate().publicKey.toBase58();
const FEE_JUP = Keypair.generate().publicKey.toBase58();
const POOL = Keypair.generate().publicKey.toBase58();
const JUP6 = PROGRAM_IDS.jupiterV6;

function token(mint: string, owner: string, amount: bigint): AccountSnapshot {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode({ mint: new PublicKey(mint), owner: new PublicKey(owner), amount, delegateOption: 0, delegate: PublicKey.default, state: AccountState.Initialized, isNativeOption: 0, isNative: 0n, delegatedAmount: 0n, closeAuthorityOption: 0, closeAuthority: PublicKey.default }, data);
  return { lamports: 2_039_280n, owner: TOKEN_PROGRAM_ID.toBase58(), data };
}

function mint(decimals: number): AccountSnapshot {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode({ mintAuthorityOption: 0, mintAuthority: PublicKey.default, supply: 0n, decimals, isInitialized: true, freezeAuthorityOption: 0, freezeAuthority: PublicKey.default }, data);
  return { lamports: rentExemptLamports(BigInt(MINT_SIZE)), owner: TOKEN_PROGRAM_ID.toBase58(), data };
}

/** 100 USDC for JUP at $1 and $0.50 (200 JUP, 6 decimals both), 50 bps slippage, 10 bps fee: at least 200 × 0.995 × 0.999 = 198.801 JUP. */
const TERMS: SwapTerms = { inputMint: USDC, outputMint: JUP, amount: 100_000_000n, inputUsd: 1, outputUsd: 0.5, inputDecimals: 6, outputDecimals: 6, slippageBps: 50, feeBps: 10 };
const DECODED = { baseFeeLamports: 5_000n, priorityFeeLamports: 0n } as DecodedMessage;

/**
 * The swap as the guard follows it: 100 USDC from the wallet to the pool under the aggregator, `gross` JUP from the
 * pool into the wallet, then `fee` JUP out of the wallet's account to the fee account under `feeUnder`.
 */
function judge(gross: bigint, fee: bigint, feeUnder: string = JUP6, feeBps = TERMS.feeBps): string[] {
  const pre = new Map<string, AccountSnapshot | null>([
    [WALLET, { lamports: 1_000_000_000n, owner: PROGRAM_IDS.system, data: new Uint8Array(0) }],
    [WALLET_USDC, token(USDC, WALLET, 100_000_000n)],
    [WALLET_JUP, token(JUP, WALLET, 0n)],
    [POOL_USDC, token(USDC, POOL, 0n)],
    [POOL_JUP, token(JUP, POOL, 1_000_000_000n)],
    [FEE_JUP, token(JUP, Keypair.generate().publicKey.toBase58(), 0n)],
    [USDC, mint(6)],
    [JUP, mint(6)],
  ]);
  const post = new Map(pre);
  post.set(WALLET, { ...pre.get(WALLET)!, lamports: 1_000_000_000n - 5_000n });
  post.set(WALLET_USDC, token(USDC, WALLET, 0n));
  post.set(WALLET_JUP, token(JUP, WALLET, gross - fee));
  post.set(FEE_JUP, token(JUP, Keypair.generate().publicKey.toBase58(), fee));
  const events: TracedEvent[] = [
    { kind: 'tokens', from: WALLET_USDC, to: POOL_USDC, amount: 100_000_000n, top: JUP6 },
    { kind: 'tokens', from: POOL_JUP, to: WALLET_JUP, amount: gross, top: JUP6 },
    ...(fee > 0n ? [{ kind: 'tokens', from: WALLET_JUP, to: FEE_JUP, amount: fee, top: feeUnder } satisfies FlowEvent & { top: string }] : []),
  ];
  const flows = checkFlows(events, pre, post, {
    wallet: WALLET,
    spend: { kind: 'counterparty', mint: USDC, max: 100_000_000n },
    tipAccounts: TIP_ACCOUNTS,
    counterparties: new Set(),
    swapPrograms: new Set([JUP6]),
    mayUnwrapSol: false,
    rentExempt: rentExemptLamports,
    tokenAccountSpace: () => 165n,
    swapFeeMint: JUP,
  });
  const violations: GuardViolation[] = [...flows.violations];
  checkSwapInflow(computeWalletChanges(pre, post, WALLET), DECODED, flows, { ...TERMS, feeBps }, pre, violations);
  return violations.map((v) => v.rule).sort();
}

describe('a swap fee taken out of the wallet\'s output', () => {
  it('is the swap\'s fee when the aggregator takes at most the fee table\'s share of what arrived', () => {
    // 200 JUP arrive; 10 bps of them is 0.2 JUP (200_000): the wallet keeps 199.8 JUP, above the 198.801 JUP bound.
    expect(judge(200_000_000n, 200_000n)).toEqual([]);
    // No fee at all passes too.
    expect(judge(200_000_000n, 0n)).toEqual([]);
  });

  it('is refused one unit past the table\'s share, though the wallet still keeps more than its bound', () => {
    // 200_001 × 10_000 = 2_000_010_000 > 200_000_000 × 10 = 2_000_000_000: past 10 bps; 199.799999 JUP still clear 198.801.
    expect(judge(200_000_000n, 200_001n)).toEqual(['destination']);
  });

  it('is refused when the table allows no fee (a Metis swap: jup-keeper asks for none)', () => {
    expect(judge(200_000_000n, 1n, JUP6, 0)).toEqual(['destination']);
  });

  it('is a payment to a stranger when it is not the aggregator that takes it', () => {
    expect(judge(200_000_000n, 200_000n, PROGRAM_IDS.splToken)).toEqual(['destination']);
  });

  it('still leaves the wallet its bound: a fee within the table on an output already short is inflow-short', () => {
    // 199 JUP arrive and 10 bps (0.199) are taken: 198.801 kept, exactly the bound. 198.9 arrive less 0.1989: 198.7011 kept.
    expect(judge(199_000_000n, 199_000n)).toEqual([]);
    expect(judge(198_900_000n, 198_900n)).toEqual(['inflow-short']);
  });
});
