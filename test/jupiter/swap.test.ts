import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Configuration, SwapApi, type QuoteResponse } from '@jup-ag/api';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, LimitError, SchemaError, ServerError } from '../../src/jupiter/errors.js';
import { bindSwap, RouteError, swapRequestSchema, type GetQuoteParams, type RawQuote } from '../../src/jupiter/swap/index.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USER = 'BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV';
const FEE_ACCOUNT = '7kbnvuGBxxj8AG9qp8Scn56muWGaRaFqxg1FsRp3PaFT';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAEN';

/** The real /swap/v1/quote example of jupiter-api.md §2 (SOL -> USDC), plus a field the spec does not list. */
function quoteBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    inputMint: SOL,
    inAmount: '100000000',
    outputMint: USDC,
    outAmount: '16198753',
    otherAmountThreshold: '16117760',
    swapMode: 'ExactIn',
    slippageBps: 50,
    platformFee: null,
    priceImpactPct: '0',
    routePlan: [
      {
        swapInfo: { ammKey: '5BKxfWMbmYBAEWvyPZS9esPducUba9GqyMjtLCfbaqyF', label: 'Meteora DLMM', inputMint: SOL, outputMint: USDC, inAmount: '100000000', outAmount: '16198753' },
        percent: 100,
        bps: 10000,
      },
    ],
    contextSlot: 299283763,
    timeTaken: 0.015257836,
    mostReliableAmmsQuoteReport: { info: { BZtgQEyS6eXUXicYPHecYQ7PybqodXQMvkjUbP4R8mUU: '16195832' } },
    swapUsdValue: '16.1987',
    ...overrides,
  };
}

const SWAP_INSTRUCTIONS = {
  computeBudgetInstructions: [{ programId: 'ComputeBudget111111111111111111111111111111', accounts: [], data: 'AsBcAA==' }],
  setupInstructions: [{ programId: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL', accounts: [{ pubkey: USER, isSigner: true, isWritable: true }], data: 'AQ==' }],
  swapInstruction: {
    programId: 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4',
    accounts: [{ pubkey: USER, isSigner: true, isWritable: true }],
    data: 'wSCbM0HWnIEAAQAAAAAAAAA=',
  },
  cleanupInstruction: null,
  otherInstructions: [],
  addressLookupTableAddresses: ['GxS6FiQ9RbErBB48mE34U4Jv13MdEJov4R1e5KgFzRFY'],
};

describe('the Swap V1 (Metis) endpoints', () => {
  let server: FixtureServer;
  let swap: ReturnType<typeof bindSwap>;
  beforeAll(async () => {
    server = await startFixtureServer();
    swap = bindSwap(testTransport(server.url));
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  const base: GetQuoteParams = { inputMint: SOL, outputMint: USDC, amount: 100_000_000n };
  const rawQuote = async (overrides: Record<string, unknown> = {}, params: GetQuoteParams = base): Promise<RawQuote> => {
    server.on('GET', '/swap/v1/quote', { body: quoteBody(overrides) });
    const { raw } = await swap.getQuote(params);
    server.requests.length = 0;
    return raw;
  };

  describe('getQuote', () => {
    it('returns the typed quote with bigint amounts and the raw quote unchanged', async () => {
      server.on('GET', '/swap/v1/quote', { body: quoteBody() });
      const { quote, raw } = await swap.getQuote(base);
      expect(quote).toMatchObject({ inAmount: 100_000_000n, outAmount: 16_198_753n, otherAmountThreshold: 16_117_760n, platformFee: null });
      expect(quote.priceImpactPct).toBe(0);
      expect(quote.routePlan[0]!.swapInfo).toMatchObject({ label: 'Meteora DLMM', outAmount: 16_198_753n });
      expect(raw).toEqual(quoteBody());
    });

    it('sends every documented parameter in the query', async () => {
      server.on('GET', '/swap/v1/quote', { body: quoteBody({ swapMode: 'ExactOut', platformFee: { amount: '1620', feeBps: 10 } }) });
      const { quote } = await swap.getQuote({
        ...base,
        slippageBps: 30,
        swapMode: 'ExactOut',
        dexes: ['Meteora DLMM', 'Orca V2'],
        excludeDexes: [],
        onlyDirectRoutes: true,
        restrictIntermediateTokens: false,
        maxAccounts: 40,
        platformFeeBps: 10,
        asLegacyTransaction: false,
        instructionVersion: 'V2',
        dynamicSlippage: true,
        forJitoBundle: true,
      });
      expect(quote.platformFee).toEqual({ amount: 1620n, feeBps: 10 });
      const [req] = server.requestsTo('/swap/v1/quote', 'GET');
      expect(Object.fromEntries(req!.query)).toEqual({
        inputMint: SOL,
        outputMint: USDC,
        amount: '100000000',
        slippageBps: '30',
        swapMode: 'ExactOut',
        dexes: 'Meteora DLMM,Orca V2',
        onlyDirectRoutes: 'true',
        restrictIntermediateTokens: 'false',
        maxAccounts: '40',
        platformFeeBps: '10',
        asLegacyTransaction: 'false',
        instructionVersion: 'V2',
        dynamicSlippage: 'true',
        forJitoBundle: 'true',
      });
    });

    it('throws RouteError carrying the service errorCode when no route exists', async () => {
      server.on('GET', '/swap/v1/quote', { status: 400, body: { error: 'Could not find any route', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' } });
      const err = await swap.getQuote(base).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RouteError);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as RouteError).routeErrorCode).toBe('COULD_NOT_FIND_ANY_ROUTE');
      expect((err as RouteError).code).toBe('JUP_ROUTE_COULD_NOT_FIND_ANY_ROUTE');
      expect((err as RouteError).action).toBe('abandon');
      expect((err as RouteError).serviceMessage).toBe('Could not find any route');
      expect(server.requestsTo('/swap/v1/quote')).toHaveLength(1);
    });

    it('keeps the generic retrying ServerError for a 5xx', async () => {
      server.on('GET', '/swap/v1/quote', { status: 500, body: { error: 'internal', errorCode: 'INTERNAL' } });
      await expect(swap.getQuote(base)).rejects.toBeInstanceOf(ServerError);
      expect(server.requestsTo('/swap/v1/quote')).toHaveLength(3);
    });

    it('names the field when an amount is not a digit string', async () => {
      server.on('GET', '/swap/v1/quote', { body: quoteBody({ outAmount: '16198753.5' }) });
      const err = await swap.getQuote(base).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('outAmount');
    });

    it('refuses a quote for other mints than asked', async () => {
      server.on('GET', '/swap/v1/quote', { body: quoteBody({ outputMint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' }) });
      const err = await swap.getQuote(base).catch((e: unknown) => e);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['outputMint']);
    });

    it.each([
      ['maxAccounts 65', { maxAccounts: 65 }, 'quote.maxAccounts.range'],
      ['maxAccounts 0', { maxAccounts: 0 }, 'quote.maxAccounts.range'],
      ['amount 0', { amount: 0n }, 'quote.amount.positive'],
      ['the same mint twice', { outputMint: SOL }, 'quote.mints.distinct'],
      ['slippageBps 10001', { slippageBps: 10_001 }, 'quote.slippageBps.range'],
    ] as const)('throws LimitError for %s and sends nothing', async (_name, extra, rule) => {
      const err = await swap.getQuote({ ...base, ...extra }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('buildSwap', () => {
    it('posts the raw quote unchanged and parses the transaction and its reports', async () => {
      const raw = await rawQuote();
      server.on('POST', '/swap/v1/swap', {
        body: {
          swapTransaction: TX,
          lastValidBlockHeight: 279632475,
          prioritizationFeeLamports: 9999,
          computeUnitLimit: 388876,
          prioritizationType: { computeBudget: { microLamports: 25715, estimatedMicroLamports: 785154 } },
          dynamicSlippageReport: { slippageBps: 50, otherAmount: 20612318, simulatedIncurredSlippageBps: -18, amplificationRatio: '1.5', categoryName: 'lst', heuristicMaxSlippageBps: 100 },
          simulationError: null,
        },
      });
      const built = await swap.buildSwap({
        userPublicKey: USER,
        quoteResponse: raw,
        dynamicComputeUnitLimit: true,
        prioritizationFeeLamports: { priorityLevelWithMaxLamports: { priorityLevel: 'veryHigh', maxLamports: 1_000_000 } },
      });
      expect(built).toMatchObject({ swapTransaction: TX, lastValidBlockHeight: 279632475, computeUnitLimit: 388876, simulationError: null });
      expect(built.dynamicSlippageReport?.otherAmount).toBe(20_612_318n);
      const [req] = server.requestsTo('/swap/v1/swap', 'POST');
      expect(req!.body).toEqual({
        userPublicKey: USER,
        quoteResponse: quoteBody(),
        dynamicComputeUnitLimit: true,
        prioritizationFeeLamports: { priorityLevelWithMaxLamports: { priorityLevel: 'veryHigh', maxLamports: 1000000 } },
      });
    });

    it('maps a Swap V1 errorCode to RouteError', async () => {
      const raw = await rawQuote();
      server.on('POST', '/swap/v1/swap', { status: 400, body: { error: 'taker has insufficient balance to build', errorCode: 'INSUFFICIENT_FUNDS' } });
      const err = await swap.buildSwap({ userPublicKey: USER, quoteResponse: raw }).catch((e: unknown) => e);
      expect((err as RouteError).code).toBe('JUP_ROUTE_INSUFFICIENT_FUNDS');
    });

    it('rejects a transaction without lastValidBlockHeight', async () => {
      const raw = await rawQuote();
      server.on('POST', '/swap/v1/swap', { body: { swapTransaction: TX } });
      const err = await swap.buildSwap({ userPublicKey: USER, quoteResponse: raw }).catch((e: unknown) => e);
      expect((err as SchemaError).issues[0]!.path).toBe('lastValidBlockHeight');
    });

    it('refuses both destination accounts at once, before sending', async () => {
      const raw = await rawQuote({ outputMint: SOL, inputMint: USDC }, { inputMint: USDC, outputMint: SOL, amount: 100_000_000n });
      const err = await swap
        .buildSwap({ userPublicKey: USER, quoteResponse: raw, destinationTokenAccount: FEE_ACCOUNT, nativeDestinationAccount: USER })
        .catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('swap.destination.exclusive');
      expect(server.requests).toHaveLength(0);
    });

    it('refuses a native SOL destination when the output is not SOL', async () => {
      const raw = await rawQuote();
      const err = await swap.buildSwap({ userPublicKey: USER, quoteResponse: raw, nativeDestinationAccount: USER }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('swap.nativeDestinationAccount.outputMint');
      expect(server.requests).toHaveLength(0);
    });

    it('requires feeAccount when the quote carries a platform fee', async () => {
      const raw = await rawQuote({ platformFee: { amount: '16198', feeBps: 10 } });
      const err = await swap.buildSwap({ userPublicKey: USER, quoteResponse: raw }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('swap.feeAccount.required');
      expect(server.requests).toHaveLength(0);
    });

    it('refuses the parsed quote in place of the raw one', async () => {
      server.on('GET', '/swap/v1/quote', { body: quoteBody() });
      const { quote } = await swap.getQuote(base);
      server.requests.length = 0;
      // A caller mixing up `quote` and `raw` (bigint amounts) is caught before anything is sent.
      const err = await swap.buildSwap({ userPublicKey: USER, quoteResponse: quote as unknown as RawQuote }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('swap.quoteResponse.invalid');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('getSwapInstructions', () => {
    it('posts the same body and parses the instructions', async () => {
      const raw = await rawQuote();
      server.on('POST', '/swap/v1/swap-instructions', { body: SWAP_INSTRUCTIONS });
      const ix = await swap.getSwapInstructions({ userPublicKey: USER, quoteResponse: raw, wrapAndUnwrapSol: false });
      expect(ix.swapInstruction.programId).toBe('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4');
      expect(ix.setupInstructions[0]!.accounts[0]).toEqual({ pubkey: USER, isSigner: true, isWritable: true });
      expect(ix.cleanupInstruction).toBeNull();
      expect(ix.addressLookupTableAddresses).toEqual(['GxS6FiQ9RbErBB48mE34U4Jv13MdEJov4R1e5KgFzRFY']);
      const [req] = server.requestsTo('/swap/v1/swap-instructions', 'POST');
      expect(req!.body).toEqual({ userPublicKey: USER, quoteResponse: quoteBody(), wrapAndUnwrapSol: false });
    });

    it('names the field when the swap instruction lacks its program id', async () => {
      const raw = await rawQuote();
      const { programId: _p, ...swapInstruction } = SWAP_INSTRUCTIONS.swapInstruction;
      server.on('POST', '/swap/v1/swap-instructions', { body: { ...SWAP_INSTRUCTIONS, swapInstruction } });
      const err = await swap.getSwapInstructions({ userPublicKey: USER, quoteResponse: raw }).catch((e: unknown) => e);
      expect((err as SchemaError).issues[0]!.path).toBe('swapInstruction.programId');
    });
  });

  describe('getProgramIdToLabel', () => {
    it('returns the program id to label map', async () => {
      const labels = { JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: 'Jupiter V6', whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc: 'Orca Whirlpool' };
      server.on('GET', '/swap/v1/program-id-to-label', { body: labels });
      await expect(swap.getProgramIdToLabel()).resolves.toEqual(labels);
      expect(server.requestsTo('/swap/v1/program-id-to-label', 'GET')).toHaveLength(1);
    });

    it('rejects a label that is not a string', async () => {
      server.on('GET', '/swap/v1/program-id-to-label', { body: { JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: 6 } });
      const err = await swap.getProgramIdToLabel().catch((e: unknown) => e);
      expect((err as SchemaError).issues[0]!.path).toBe('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4');
    });
  });

  describe('when the official @jup-ag/api client uses the same shapes', () => {
    it('reads our quote fixture and sends a swap body our schema accepts', async () => {
      server.on('GET', '/swap/v1/quote', { body: quoteBody() });
      server.on('POST', '/swap/v1/swap', { body: { swapTransaction: TX, lastValidBlockHeight: 279632475 } });
      const api = new SwapApi(new Configuration({ basePath: `${server.url}/swap/v1` }));
      const quote: QuoteResponse = await api.quoteGet({ inputMint: SOL, outputMint: USDC, amount: 100_000_000 });
      expect(quote.outAmount).toBe('16198753');
      const swapped = await api.swapPost({ swapRequest: { userPublicKey: USER, quoteResponse: quote, dynamicComputeUnitLimit: true } });
      expect(swapped.lastValidBlockHeight).toBe(279632475);
      const [req] = server.requestsTo('/swap/v1/swap', 'POST');
      expect(swapRequestSchema.safeParse(req!.body).success).toBe(true);
    });
  });
});
