/** Response bodies shaped like the real API, trimmed from the client tests (jupiter-api.md examples). */

export const SOL = 'So11111111111111111111111111111111111111112';
export const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
/** A real mint that is not in KNOWN_MINTS. */
export const HELP = 'HeLp6NuQkmYB4pYWo2zYs22mESHXPQYzXbB8n4V98jwC';
export const WALLET = 'BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const JLUSDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';

/** The documented /price/v3 example. */
export const PRICES = {
  [SOL]: { createdAt: '2024-06-05T08:55:25.527Z', liquidity: 621679197.67, usdPrice: 147.48, blockId: 348004023, decimals: 9, priceChange24h: 1.29 },
  [USDC]: { createdAt: '2024-06-05T08:55:25.527Z', liquidity: 522175174.66, usdPrice: 0.9999, blockId: 348004025, decimals: 6, priceChange24h: -0.003 },
};

/** The /swap/v1/quote example (1 SOL -> USDC). */
export const QUOTE = {
  inputMint: SOL,
  inAmount: '1000000000',
  outputMint: USDC,
  outAmount: '161987530',
  otherAmountThreshold: '161177600',
  swapMode: 'ExactIn',
  slippageBps: 50,
  platformFee: null,
  priceImpactPct: '0.0012',
  routePlan: [
    {
      swapInfo: { ammKey: '5BKxfWMbmYBAEWvyPZS9esPducUba9GqyMjtLCfbaqyF', label: 'Meteora DLMM', inputMint: SOL, outputMint: USDC, inAmount: '1000000000', outAmount: '161987530' },
      percent: 100,
      bps: 10000,
    },
  ],
  contextSlot: 299283763,
  timeTaken: 0.015257836,
};

/** The Ultra /order example without taker (USDC -> SOL). */
export const ULTRA_ORDER = {
  mode: 'ultra',
  inputMint: USDC,
  outputMint: SOL,
  inAmount: '100000000',
  outAmount: '461208958',
  otherAmountThreshold: '460024271',
  swapMode: 'ExactIn',
  slippageBps: 26,
  priceImpactPct: '-0.0001311599520149334',
  routePlan: [
    {
      swapInfo: { ammKey: 'HTvjzsfX3yU6BUodCjZ5vZkUrAxMDTrBs3CJaq43ashR', label: 'MeteoraDLMM', inputMint: USDC, outputMint: SOL, inAmount: '100000000', outAmount: '461208958', feeAmount: '0', feeMint: '11111111111111111111111111111111' },
      percent: 100,
      bps: 10000,
    },
  ],
  feeMint: SOL,
  feeBps: 2,
  platformFee: { amount: '92050', feeBps: 2 },
  taker: null,
  gasless: false,
  transaction: null,
  swapType: 'aggregator',
  router: 'metis',
  requestId: '019974a8-5fbb-7395-9355-9ebf8f844884',
  inUsdValue: 99.96761068334662,
  outUsdValue: 99.95449893632635,
  priceImpact: -0.013115995201493341,
};

const tokenAccount = (account: string, amount: string, decimals: number) => ({
  account,
  amount,
  uiAmount: Number(amount) / 10 ** decimals,
  uiAmountString: String(Number(amount) / 10 ** decimals),
  isFrozen: false,
  isAssociatedTokenAccount: true,
  decimals,
  programId: TOKEN_PROGRAM,
  lamports: '2039280',
  excludeFromNetWorth: false,
});

/** /ultra/v1/holdings: 1.5 SOL, 25 USDC, and an unknown token with 9 decimals. */
export const HOLDINGS = {
  amount: '1500000000',
  uiAmount: 1.5,
  uiAmountString: '1.5',
  tokens: {
    [USDC]: [tokenAccount('7kbnvuGBxxj8AG9qp8Scn56muWGaRaFqxg1FsRp3PaFT', '25000000', 6)],
    [HELP]: [tokenAccount('DkiqsTrw1u1bYFumumC7sCG2S8K25qc2vemJFHyW2wJc', '32071840924', 9)],
  },
};

/** The spec's JUP token (Tokens V2). */
export const JUP_TOKEN = {
  id: JUP, name: 'Jupiter', symbol: 'JUP', decimals: 6, usdPrice: 0.1415, liquidity: 2992387.89, organicScore: 97.98,
  organicScoreLabel: 'high', isVerified: true, tags: ['community', 'strict', 'verified'], mcap: 459171256.1,
  stats24h: { priceChange: -8.27, numBuys: 33979 }, updatedAt: '2026-02-23T04:55:12.461Z',
};

/** A market in the flat 2026 shape. */
export const flatMarket = (over: Record<string, unknown> = {}) => ({
  marketId: 'POLY-1345531-YES',
  eventId: 'POLY-351731',
  provider: 'polymarket',
  title: 'Bitcoin above $90k on Dec 31?',
  status: 'open',
  result: null,
  openTime: 1767225600,
  closeTime: 1798761600,
  resolveAt: null,
  isTeamMarket: false,
  pricing: { buyYesPriceUsd: 650000, buyNoPriceUsd: 380000, sellYesPriceUsd: 620000, sellNoPriceUsd: 350000, volume: 450000 },
  ...over,
});

/** An event with markets, as GET /events lists it. */
export const event = (markets: unknown[]) => ({
  eventId: 'POLY-351731',
  isActive: true,
  isLive: false,
  category: 'crypto',
  metadata: { eventId: 'POLY-351731', title: 'Bitcoin price on Dec 31', closeTime: '2026-12-31T00:00:00Z', isLive: false },
  markets,
  volumeUsd: '1523000000',
  volume24hr: '25000000',
  beginAt: '1767225600',
});

export const pagination = { start: 0, end: 1, total: 1, hasNext: false };

/** An open prediction position in a losing state. */
export const predictionPosition = {
  pubkey: 'iREhDiDWmM8vStQFkQ75AywTfRZUqbPEZytUTWJzxh5e',
  ownerPubkey: WALLET,
  marketId: 'POLY-1345531-YES',
  isYes: true,
  contracts: '14',
  contractsMicro: '14285714',
  totalCostUsd: '9850000',
  valueUsd: '8857142',
  avgPriceUsd: '689655',
  markPriceUsd: '620000',
  sellPriceUsd: '620000',
  pnlUsd: '-992858',
  pnlUsdPercent: -10.08,
  pnlUsdAfterFees: '-1142858',
  claimed: false,
  payoutUsd: '14285714',
  marketMetadata: { marketId: 'POLY-1345531-YES', title: 'Bitcoin above $90k?', status: 'open', result: null, closeTime: 1798761600 },
  claimable: false,
};

/** jlUSDC as observed from the real service. */
const JLUSDC_TOKEN = {
  id: 1,
  address: JLUSDC,
  name: 'jupiter lend USDC',
  symbol: 'jlUSDC',
  decimals: 6,
  assetAddress: USDC,
  asset: { address: USDC, chainId: 'solana', name: 'USD Coin', symbol: 'USDC', decimals: 6, price: '0.999779333214' },
  totalAssets: '301852163211954',
  totalSupply: '289658234516223',
  convertToShares: '959612',
  convertToAssets: '1042088',
  rewardsRate: '110',
  supplyRate: '313',
  totalRate: '423',
};

/** A Lend Earn position of WALLET: 1 jlUSDC share worth 1.042088 USDC. */
export const lendPosition = { token: JLUSDC_TOKEN, ownerAddress: WALLET, shares: '1000000', underlyingAssets: '1042088', underlyingBalance: '25000000', allowance: '0' };

/** An open trigger order (sell 1 SOL for 200 USDC), as the service sends it (`closeTx: ""`). */
export const triggerOrder = {
  userPubkey: WALLET,
  orderKey: '7nE9GJoYHNmtaQvTQpota3KV2oz4pQ2dA6nvYK8EUJHV',
  inputMint: SOL,
  outputMint: USDC,
  makingAmount: '1.0',
  takingAmount: '200.0',
  remainingMakingAmount: '1.0',
  remainingTakingAmount: '200.0',
  rawMakingAmount: '1000000000',
  rawTakingAmount: '200000000',
  rawRemainingMakingAmount: '1000000000',
  rawRemainingTakingAmount: '200000000',
  slippageBps: '50',
  expiredAt: '1767225600',
  createdAt: '2025-03-17T08:07:25Z',
  updatedAt: '2025-03-17T08:09:37Z',
  status: 'Open',
  openTx: '466G3XxE4NzxCj136SXe4BSjXzCVBQdvn6RsHMNGN2DGCS9PSceJSACqEWCxx22hsCXcEskvEFdm44wsHCF1auvL',
  closeTx: '',
  programVersion: 'j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X',
  trades: [],
};

/** A running time-based recurring order: 10 USDC into SOL every minute. */
export const recurringOrder = {
  userPubkey: WALLET,
  orderKey: '4DWzP4TdTsuwvYMaMWrRqzya4UTFKFoVjfUWNWh8zhzd',
  inputMint: USDC,
  outputMint: SOL,
  inDeposited: '100.0',
  inWithdrawn: '0.0',
  rawInDeposited: '100000000',
  rawInWithdrawn: '0',
  cycleFrequency: '60',
  outWithdrawn: '0.0',
  inAmountPerCycle: '10.0',
  minOutAmount: '0',
  maxOutAmount: '0',
  inUsed: '10.0',
  outReceived: '0.058',
  rawOutWithdrawn: '0',
  rawInAmountPerCycle: '10000000',
  rawMinOutAmount: '0',
  rawMaxOutAmount: '0',
  rawInUsed: '10000000',
  rawOutReceived: '58000000',
  openTx: '466G3XxE4NzxCj136SXe4BSjXzCVBQdvn6RsHMNGN2DGCS9PSceJSACqEWCxx22hsCXcEskvEFdm44wsHCF1auvL',
  closeTx: '',
  userClosed: false,
  createdAt: '2025-03-15T10:30:00.000Z',
  updatedAt: '2025-03-15T11:30:00.000Z',
  trades: [],
};

/** A pending prediction buy order account (GET /orders). */
export const predictionOrder = {
  pubkey: 'Yp1GK1k6ZVZVUZeye3Vp9s6c76H93Br6LDBHsTdo35An',
  ownerPubkey: WALLET,
  marketId: 'POLY-1345531-YES',
  eventId: 'POLY-351731',
  status: 'pending',
  isYes: true,
  isBuy: true,
  createdAt: 1767300000,
  contracts: '14',
  maxFillPriceUsd: '700000',
  maxBuyPriceUsd: '700000',
  minSellPriceUsd: null,
  sizeUsd: '9850000',
  marketMetadata: { marketId: 'POLY-1345531-YES', title: 'Bitcoin above $90k?', status: 'open', result: null, closeTime: 1798761600 },
};
