// Issue 21, item 4 (prediction): the two known layouts of `create_order` told apart, and an unknown one refused with
// the reason. Known answers: the create_order of a live buy a third party captured from Jupiter's API on 2026-09-17
// (SeekerAgentConnect/sac, fixtures/jupiter/orders.json; its signatures and lookup tables resolved, the accounts
// below are that transaction's), which names its market by the API's marketIdHash and whose all-zero tail both
// tails read alike; and bytes of the IDL v0.10.0 layout written by hand.
import { describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import { predictionBuyCheck } from '../../src/execution/productGuard/prediction.js';
import { ProgramLayoutError } from '../../src/jupiter/programs/instruction.js';
import { createOrderData, createOrderHashData, decodeCreateOrderLayout, decodePredictionInstruction, orderAtaAddress, PREDICTION_PROGRAM, vaultAddress, type CreateOrderHashArgs } from '../../src/jupiter/programs/prediction.js';
import { JUPUSD_MINT } from '../../src/lib/mints.js';

const PROGRAM = PREDICTION_PROGRAM.toBase58();
/** The captured create_order's data: discriminator, two strings, two bools, three u64, and a three-byte tail of zeros. */
const CAPTURED = Buffer.from(
  '8d3625cfedd2fad7' +
    '20000000' + Buffer.from('9180bcc6cc42464bb5d47d7a7ff66d95').toString('hex') +
    '20000000' + Buffer.from('e5ecff63f0706f7d16bbb4556674cea8').toString('hex') +
    '0101' + '20a2690100000000' + '400d030000000000' + '613e4c0000000000' + '000000',
  'hex',
);
/** What the captured order's response said of it (order.*), field for field. */
const CAPTURED_ARGS: CreateOrderHashArgs = {
  externalOrderId: '9180bcc6cc42464bb5d47d7a7ff66d95',
  marketIdHash: 'e5ecff63f0706f7d16bbb4556674cea8',
  isYes: true,
  isBuy: true,
  contracts: 23_700_000n,
  maxFillPriceUsd: 200_000n,
  depositAmount: 4_996_705n,
  slippageBps: 0,
  maxSlippageBps: null,
};
/** The captured create_order's twelve accounts, in order (index 3 is the vault PDA of JupUSD, not a market account). */
const CAPTURED_ACCOUNTS = [
  '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', '5uFXJogUEqBTsVT8AcfuWbC9ZFM1tSzTFJ3eKVeB14yi',
  '2y9Ad2GD7gwiMkkMu4bBK5216Pv9YJsBkSHAGwN3rBuJ', 'B4iziSETZtuLunVscfuYwZE1qTSHnMaodwGyXXMZ5e5n', 'F6yPJ9m8bBSmFc6fp4QGfTPGA2aJqkvxHZbfjVE1ncyq',
  '4PFR1A5kHoSKGEqoGRivWBdtyGcmgHKArvLFHEeycFGS', JUPUSD_MINT, '3fJDBTHZcJzZDtPQFA8rsQxgVqPHSrA6YiDuwhN6789J',
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL', '11111111111111111111111111111111',
];

describe('create_order: the market-hash layout of a live order', () => {
  it('reads the captured order as the response described it, and writes its bytes back', () => {
    expect(decodeCreateOrderLayout(CAPTURED)).toEqual({ layout: 'market-hash', args: CAPTURED_ARGS });
    expect(createOrderHashData(CAPTURED_ARGS).toString('hex')).toBe(CAPTURED.toString('hex'));
    const d = decodePredictionInstruction({ programId: PROGRAM, accounts: CAPTURED_ACCOUNTS, data: CAPTURED });
    expect(d).toMatchObject({ name: 'createOrderByHash', args: CAPTURED_ARGS, accounts: { payer: CAPTURED_ACCOUNTS[0], authority: CAPTURED_ACCOUNTS[2], vault: CAPTURED_ACCOUNTS[3], order: CAPTURED_ACCOUNTS[5], orderAta: CAPTURED_ACCOUNTS[8] } });
  });

  it('has the IDL\'s account order: account 3 is the vault of the settlement mint and account 8 the order\'s escrow', () => {
    expect(vaultAddress(new PublicKey(JUPUSD_MINT)).address.toBase58()).toBe(CAPTURED_ACCOUNTS[3]);
    expect(orderAtaAddress(new PublicKey(CAPTURED_ACCOUNTS[5]!), new PublicKey(JUPUSD_MINT)).toBase58()).toBe(CAPTURED_ACCOUNTS[8]);
  });

  it('is told from the IDL layout by its market field: the zero tail reads alike in both', () => {
    // The same bytes, read as IDL v0.10.0: a market order, no integrator, no fee, the hash in place of a market id.
    const asIdl = createOrderData({ externalOrderId: CAPTURED_ARGS.externalOrderId, marketId: CAPTURED_ARGS.marketIdHash, isYes: true, isBuy: true, contracts: 23_700_000n, maxFillPriceUsd: 200_000n, depositAmount: 4_996_705n, orderType: 'market', integrator: null, integratorFeeBps: null });
    expect(asIdl.toString('hex')).toBe(CAPTURED.toString('hex'));
    const byId = createOrderData({ externalOrderId: 'x', marketId: 'POLY-2772176', isYes: false, isBuy: true, contracts: 1n, maxFillPriceUsd: 2n, depositAmount: 3n, orderType: 'limit', integrator: null, integratorFeeBps: 0 });
    expect(decodeCreateOrderLayout(byId)).toMatchObject({ layout: 'idl-0.10.0', args: { marketId: 'POLY-2772176', orderType: 'limit', integratorFeeBps: 0 } });
    const slipped = createOrderHashData({ ...CAPTURED_ARGS, slippageBps: 25, maxSlippageBps: 300 });
    expect(decodeCreateOrderLayout(slipped)).toEqual({ layout: 'market-hash', args: { ...CAPTURED_ARGS, slippageBps: 25, maxSlippageBps: 300 } });
  });
});

describe('create_order in no known layout', () => {
  const head = CAPTURED.subarray(0, CAPTURED.length - 3);
  const withTail = (data: Buffer, tail: number[]) => Buffer.concat([data, Buffer.from(tail)]);
  const idlHead = createOrderData({ externalOrderId: 'x', marketId: 'POLY-1', isYes: true, isBuy: true, contracts: 1n, maxFillPriceUsd: 2n, depositAmount: 3n, orderType: 'market', integrator: null, integratorFeeBps: null }).subarray(0, -3);
  const cases: Array<[string, Buffer, string]> = [
    ['a market hash with a 4-byte tail', withTail(head, [0, 0, 0, 0]), 'tail is not the market-hash layout\'s'],
    ['a market hash with an option tag of 2', withTail(head, [0, 0, 2]), 'tail is not the market-hash layout\'s'],
    ['a market id with an order type of 2', withTail(idlHead, [2, 0, 0]), 'tail is not the IDL v0.10.0 layout\'s'],
    ['a market id with a byte past its tail', withTail(idlHead, [0, 0, 0, 9]), 'tail is not the IDL v0.10.0 layout\'s'],
    ['a market id with an integrator cut short', withTail(idlHead, [0, 1, 7, 7, 0]), 'tail is not the IDL v0.10.0 layout\'s'],
    ['an is_yes of 2', Buffer.concat([head.subarray(0, head.length - 26), Buffer.from([2]), head.subarray(head.length - 25), Buffer.from([0, 0, 0])]), 'is_yes is the byte 2, not a bool'],
  ];
  for (const [what, data, why] of cases) {
    it(`refuses ${what}, saying why`, () => {
      expect(() => decodeCreateOrderLayout(data)).toThrow(why);
      expect(() => decodePredictionInstruction({ programId: PROGRAM, accounts: CAPTURED_ACCOUNTS, data })).toThrow(ProgramLayoutError);
      const wallet = new PublicKey(CAPTURED_ACCOUNTS[0]!);
      const verdict = predictionBuyCheck({ kind: 'prediction.buy', marketId: 'POLY-2772176', side: 'yes', depositAmount: 5_000_000n, maxPriceMicroUsd: 250_000n }, wallet).check([{ programId: PROGRAM, accounts: CAPTURED_ACCOUNTS, data }], () => null);
      expect(verdict.violations).toEqual([{ rule: 'product-instruction', message: expect.stringContaining(why) }]);
    });
  }

  it('reads a market-hash order as such, and holds its market to the hash of the intent\'s market id', () => {
    const wallet = new PublicKey(CAPTURED_ACCOUNTS[0]!);
    const intent = { kind: 'prediction.buy' as const, marketId: 'POLY-2772176', side: 'yes' as const, depositAmount: 4_996_705n, maxPriceMicroUsd: 250_000n, depositMint: JUPUSD_MINT };
    const ix = [{ programId: PROGRAM, accounts: CAPTURED_ACCOUNTS, data: CAPTURED }];
    const market = (marketId: string) => predictionBuyCheck({ ...intent, marketId }, wallet).check(ix, () => null).violations.filter((v) => v.rule === 'product-market');
    // The live order names POLY-2772176 by the first 16 bytes of sha256("market:POLY-2772176"), written out here.
    expect(CAPTURED_ARGS.marketIdHash).toBe('e5ecff63f0706f7d16bbb4556674cea8');
    expect(market('POLY-2772176')).toEqual([]);
    expect(market('POLY-2772177')).toEqual([{ rule: 'product-market', message: expect.stringContaining(`the market id hash (the intent's POLY-2772177 hashes to`) }]);
    // The captured order holds whole against an intent of its own terms (a JupUSD deposit of its cost): owner and
    // payer, side, market, deposit, limit, vault and escrow (the new order's accounts read as absent).
    expect(predictionBuyCheck(intent, wallet).check(ix, () => null).violations).toEqual([]);
  });
});
