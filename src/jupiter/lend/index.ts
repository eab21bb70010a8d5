import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendDeposit, type LendDepositParams } from './lendDeposit.js';
import { lendDepositInstructions, type LendDepositInstructionsParams } from './lendDepositInstructions.js';
import { lendWithdraw, type LendWithdrawParams } from './lendWithdraw.js';
import { lendWithdrawInstructions, type LendWithdrawInstructionsParams } from './lendWithdrawInstructions.js';
import { lendMint, type LendMintParams } from './lendMint.js';
import { lendMintInstructions, type LendMintInstructionsParams } from './lendMintInstructions.js';
import { lendRedeem, type LendRedeemParams } from './lendRedeem.js';
import { lendRedeemInstructions, type LendRedeemInstructionsParams } from './lendRedeemInstructions.js';
import { getLendTokens, type GetLendTokensParams } from './getLendTokens.js';
import { getLendPositions, type GetLendPositionsParams } from './getLendPositions.js';
import { getLendEarnings, type GetLendEarningsParams } from './getLendEarnings.js';

export * from './shared.js';
export * from './lendDeposit.js';
export * from './lendDepositInstructions.js';
export * from './lendWithdraw.js';
export * from './lendWithdrawInstructions.js';
export * from './lendMint.js';
export * from './lendMintInstructions.js';
export * from './lendRedeem.js';
export * from './lendRedeemInstructions.js';
export * from './getLendTokens.js';
export * from './getLendPositions.js';
export * from './getLendEarnings.js';

/** The Lend Earn endpoints bound to one transport. */
export function bindLend(t: JupiterTransport) {
  return {
    lendDeposit: (p: LendDepositParams, o?: CallOptions) => lendDeposit(t, p, o),
    lendWithdraw: (p: LendWithdrawParams, o?: CallOptions) => lendWithdraw(t, p, o),
    lendMint: (p: LendMintParams, o?: CallOptions) => lendMint(t, p, o),
    lendRedeem: (p: LendRedeemParams, o?: CallOptions) => lendRedeem(t, p, o),
    lendDepositInstructions: (p: LendDepositInstructionsParams, o?: CallOptions) => lendDepositInstructions(t, p, o),
    lendWithdrawInstructions: (p: LendWithdrawInstructionsParams, o?: CallOptions) => lendWithdrawInstructions(t, p, o),
    lendMintInstructions: (p: LendMintInstructionsParams, o?: CallOptions) => lendMintInstructions(t, p, o),
    lendRedeemInstructions: (p: LendRedeemInstructionsParams, o?: CallOptions) => lendRedeemInstructions(t, p, o),
    getLendTokens: (p?: GetLendTokensParams, o?: CallOptions) => getLendTokens(t, p, o),
    getLendPositions: (p: GetLendPositionsParams, o?: CallOptions) => getLendPositions(t, p, o),
    getLendEarnings: (p: GetLendEarningsParams, o?: CallOptions) => getLendEarnings(t, p, o),
  };
}

/** The bound Lend Earn endpoints. */
export type LendEndpoints = ReturnType<typeof bindLend>;
