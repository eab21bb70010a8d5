import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, LimitError, SchemaError } from '../../src/jupiter/errors.js';
import {
  bindLend,
  lendDeposit,
  lendDepositInstructions,
  lendMint,
  lendMintInstructions,
  lendRedeem,
  lendRedeemInstructions,
  lendWithdraw,
  lendWithdrawInstructions,
} from '../../src/jupiter/lend/index.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SIGNER = 'HYbxGkNvEwvZ14RzJHPB9h3dWfXjxwAEhkyzJRHx1hBf';
const EARN_PROGRAM = 'jup3YeL8QhtSx1e253b2FDvsMNC87fDrgQZivbrndc9';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAEN';

/** A deposit instruction as the spec example shows it (with real base64 data instead of the elided "..."). */
const INSTRUCTION = {
  programId: EARN_PROGRAM,
  accounts: [
    { pubkey: SIGNER, isSigner: true, isWritable: true },
    { pubkey: USDC, isSigner: false, isWritable: false },
  ],
  data: '8jqJrvRWmm8=',
};

const amountOps = [
  ['lendDeposit', lendDeposit, '/lend/v1/earn/deposit'],
  ['lendWithdraw', lendWithdraw, '/lend/v1/earn/withdraw'],
] as const;
const sharesOps = [
  ['lendMint', lendMint, '/lend/v1/earn/mint'],
  ['lendRedeem', lendRedeem, '/lend/v1/earn/redeem'],
] as const;
const instructionOps = [
  ['lendDepositInstructions', (t: ReturnType<typeof testTransport>) => lendDepositInstructions(t, { asset: USDC, signer: SIGNER, amount: 1_000_000n }), '/lend/v1/earn/deposit-instructions', { amount: '1000000' }],
  ['lendWithdrawInstructions', (t: ReturnType<typeof testTransport>) => lendWithdrawInstructions(t, { asset: USDC, signer: SIGNER, amount: 5n }), '/lend/v1/earn/withdraw-instructions', { amount: '5' }],
  ['lendMintInstructions', (t: ReturnType<typeof testTransport>) => lendMintInstructions(t, { asset: USDC, signer: SIGNER, shares: 959_612n }), '/lend/v1/earn/mint-instructions', { shares: '959612' }],
  ['lendRedeemInstructions', (t: ReturnType<typeof testTransport>) => lendRedeemInstructions(t, { asset: USDC, signer: SIGNER, shares: 18446744073709551615n }), '/lend/v1/earn/redeem-instructions', { shares: '18446744073709551615' }],
] as const;

describe('the Lend Earn transaction endpoints', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  describe('when building a transaction from an amount', () => {
    it.each(amountOps)('%s posts {asset, signer, amount} as a digit string and returns the transaction', async (_name, fn, path) => {
      server.on('POST', path, { body: { transaction: TX } });
      const result = await fn(testTransport(server.url), { asset: USDC, signer: SIGNER, amount: 18446744073709551615n });
      expect(result).toEqual({ transaction: TX });
      const [req] = server.requestsTo(path, 'POST');
      expect(req!.body).toEqual({ asset: USDC, signer: SIGNER, amount: '18446744073709551615' });
      expect(req!.headers['content-type']).toBe('application/json');
    });
  });

  describe('when building a transaction from shares', () => {
    it.each(sharesOps)('%s posts {asset, signer, shares} as a digit string and returns the transaction', async (_name, fn, path) => {
      server.on('POST', path, { body: { transaction: TX } });
      const result = await fn(testTransport(server.url), { asset: USDC, signer: SIGNER, shares: 959_612n });
      expect(result.transaction).toBe(TX);
      expect(server.requestsTo(path, 'POST')[0]!.body).toEqual({ asset: USDC, signer: SIGNER, shares: '959612' });
    });
  });

  describe('when the service answers without a usable transaction', () => {
    it('rejects a missing transaction, naming the field', async () => {
      server.on('POST', '/lend/v1/earn/deposit', { body: { error: 'something odd' } });
      const err = await lendDeposit(testTransport(server.url), { asset: USDC, signer: SIGNER, amount: 1n }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).endpoint).toBe('lend.deposit');
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('transaction');
    });

    it('rejects an empty transaction', async () => {
      server.on('POST', '/lend/v1/earn/redeem', { body: { transaction: '' } });
      const err = await lendRedeem(testTransport(server.url), { asset: USDC, signer: SIGNER, shares: 1n }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('transaction');
    });

    it('maps a 400 to BadRequestError without retrying', async () => {
      server.on('POST', '/lend/v1/earn/withdraw', { status: 400, body: { error: 'Insufficient balance' } });
      const err = await lendWithdraw(testTransport(server.url), { asset: USDC, signer: SIGNER, amount: 10n }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).message).toContain('Insufficient balance');
      expect(server.requestsTo('/lend/v1/earn/withdraw')).toHaveLength(1);
    });
  });

  describe('when the request breaks a client-side limit', () => {
    it.each([
      ['a zero amount', () => lendDeposit(testTransport(server.url), { asset: USDC, signer: SIGNER, amount: 0n }), 'lend.amount.positive'],
      ['a negative amount', () => lendWithdraw(testTransport(server.url), { asset: USDC, signer: SIGNER, amount: -5n }), 'lend.amount.positive'],
      ['zero shares', () => lendMint(testTransport(server.url), { asset: USDC, signer: SIGNER, shares: 0n }), 'lend.shares.positive'],
      ['shares beyond u64', () => lendRedeem(testTransport(server.url), { asset: USDC, signer: SIGNER, shares: 1n << 64n }), 'lend.shares.u64'],
      ['an invalid asset', () => lendDeposit(testTransport(server.url), { asset: 'USDC', signer: SIGNER, amount: 1n }), 'lend.asset.address'],
      ['an invalid signer', () => lendMintInstructions(testTransport(server.url), { asset: USDC, signer: '0xabc', shares: 1n }), 'lend.signer.address'],
    ])('rejects %s with LimitError and sends nothing', async (_what, call, rule) => {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when asking for instructions', () => {
    it.each(instructionOps)('%s normalises the spec shape (one bare instruction) to {instructions}', async (_name, call, path, sent) => {
      server.on('POST', path, { body: INSTRUCTION });
      const result = await call(testTransport(server.url));
      expect(result).toEqual({ instructions: [INSTRUCTION] });
      expect(server.requestsTo(path, 'POST')[0]!.body).toEqual({ asset: USDC, signer: SIGNER, ...sent });
    });

    it.each(instructionOps)('%s reads the documented {instructions: [...]} shape', async (_name, call, path) => {
      const second = { ...INSTRUCTION, data: 'AQID' };
      server.on('POST', path, { body: { instructions: [INSTRUCTION, second] } });
      await expect(call(testTransport(server.url))).resolves.toEqual({ instructions: [INSTRUCTION, second] });
    });

    it('names the broken field of an instruction', async () => {
      server.on('POST', '/lend/v1/earn/deposit-instructions', { body: { instructions: [{ ...INSTRUCTION, programId: 'not-a-key' }] } });
      const err = await instructionOps[0][1](testTransport(server.url)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('instructions.0.programId');
    });

    it('names the broken field of a bare instruction under the normalised path', async () => {
      server.on('POST', '/lend/v1/earn/mint-instructions', { body: { ...INSTRUCTION, accounts: [{ pubkey: SIGNER, isSigner: 'yes', isWritable: true }] } });
      const err = await instructionOps[2][1](testTransport(server.url)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('instructions.0.accounts.0.isSigner');
    });

    it('rejects an empty instruction list', async () => {
      server.on('POST', '/lend/v1/earn/redeem-instructions', { body: { instructions: [] } });
      const err = await instructionOps[3][1](testTransport(server.url)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('instructions');
    });
  });

  describe('when bound to a transport', () => {
    it('exposes every Lend endpoint with the transport filled in', async () => {
      server.on('POST', '/lend/v1/earn/mint', { body: { transaction: TX } });
      const lend = bindLend(testTransport(server.url));
      expect(Object.keys(lend).sort()).toEqual(
        [
          'getLendEarnings',
          'getLendPositions',
          'getLendTokens',
          'lendDeposit',
          'lendDepositInstructions',
          'lendMint',
          'lendMintInstructions',
          'lendRedeem',
          'lendRedeemInstructions',
          'lendWithdraw',
          'lendWithdrawInstructions',
        ].sort(),
      );
      await expect(lend.lendMint({ asset: USDC, signer: SIGNER, shares: 2n })).resolves.toEqual({ transaction: TX });
    });
  });
});
