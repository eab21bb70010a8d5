// Gasless prediction orders on the simulator (PredictionTx.useGasless), in the shape of the live API's captured ones
// (SAC positions.json, test/fixtures/mainnet/prediction/*gasless*): Jupiter's gas payer is the fee payer and
// create_order's payer, opens the owner's settlement account, and its signature is in the bytes the API returns, so
// the owner signs its own slot and sends them by RPC; the owner pays no lamport. Off by default.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PublicKey, TransactionMessage, VersionedTransaction, type Keypair } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { isFeePayerSignature, transactionId } from '../../src/execution/sponsored.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import { decodePredictionInstruction, PREDICTION_PROGRAM } from '../../src/jupiter/programs/prediction.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, signBase64, startTestSim, USDC } from '../helpers/sim.js';

const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';

describe('gasless prediction orders on the simulator', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 0 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
  });
  afterAll(async () => {
    await sim.close();
  });
  const desk = () => sim.ctx.state.prediction;
  afterEach(() => desk().tx.useGasless(false));

  const taken = new Set<string>();
  async function freshMarket(): Promise<Market> {
    const page = await jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const m = page.data.flatMap((e) => e.markets).find((x) => !taken.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd < 900_000n);
    expect(m).toBeDefined();
    taken.add(m!.marketId);
    return m!;
  }
  /** POST /prediction/v1/orders as the API answers it (the client keeps only the fields it knows). */
  async function order(body: Record<string, unknown>): Promise<{ transaction: string; isGasless: boolean; order: { orderPubkey: string } }> {
    const res = await fetch(`${sim.url}/prediction/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    return (await res.json()) as { transaction: string; isGasless: boolean; order: { orderPubkey: string } };
  }
  const createOrderOf = (tx: VersionedTransaction) => {
    const ix = TransactionMessage.decompile(tx.message).instructions.find((i) => i.programId.equals(PREDICTION_PROGRAM))!;
    const d = decodePredictionInstruction(rawInstruction(ix));
    if (d?.name !== 'createOrder' && d?.name !== 'createOrderByHash') throw new Error('no create_order');
    return d;
  };
  /** Which required signers' slots hold a signature. */
  const signed = (tx: VersionedTransaction) => Object.fromEntries(tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures).map((k, i) => [k.toBase58(), tx.signatures[i]!.some((b) => b !== 0)]));
  /** Signs as the owner and sends through the venue's RPC; waits for its status. */
  async function send(transaction: string, owner: Keypair): Promise<string> {
    const signature = await rpc.send(Buffer.from(signBase64(transaction, owner), 'base64'));
    const { value } = await rpc.status(signature);
    expect(value?.err).toBeNull();
    return signature;
  }

  it('builds an order the owner pays for unless asked: the owner is the fee payer and create_order\'s payer, and nothing is signed', async () => {
    const m = await freshMarket();
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
    const me = w.publicKey.toBase58();
    const built = await order({ isBuy: true, ownerPubkey: me, marketId: m.marketId, isYes: true, depositAmount: '10000000' });
    const tx = VersionedTransaction.deserialize(Buffer.from(built.transaction, 'base64'));
    expect(built.isGasless).toBe(false);
    expect(tx.message.staticAccountKeys[0]!.toBase58()).toBe(me);
    expect(createOrderOf(tx).accounts.payer).toBe(me);
    expect(Object.values(signed(tx))).not.toContain(true);
  });

  it('builds a gasless buy and sell in the captured shape, which land with the owner\'s signature sent by RPC, the owner paying no lamport', async () => {
    const m = await freshMarket();
    desk().tx.useGasless(true);
    const gas = desk().tx.gasPayer.publicKey.toBase58();
    // An owner with no SOL at all: a gasless order is how it trades.
    const w = await fundedWallet(sim, 0n, [[USDC, 20_000_000n]]);
    const me = w.publicKey.toBase58();
    const gasBefore = (await balances(sim, gas)).lamports;

    const buy = await order({ isBuy: true, ownerPubkey: me, marketId: m.marketId, isYes: true, depositAmount: '10000000' });
    expect(buy.isGasless).toBe(true);
    const tx = VersionedTransaction.deserialize(Buffer.from(buy.transaction, 'base64'));
    expect(tx.message.staticAccountKeys[0]!.toBase58()).toBe(gas);
    // The gas payer has signed (its signature, the transaction's id, verifies over the message); the owner has not,
    // nor the authority, which co-signs at settlement here (on mainnet its signature comes filled in too).
    expect(signed(tx)).toEqual({ [gas]: true, [me]: false, [sim.ctx.state.venue.keeper.publicKey.toBase58()]: false });
    expect(isFeePayerSignature(tx, transactionId(tx))).toBe(true);
    expect(createOrderOf(tx).accounts).toMatchObject({ payer: gas, owner: me });
    const ata = TransactionMessage.decompile(tx.message).instructions.find((i) => i.programId.toBase58() === ATA_PROGRAM)!;
    const account = getAssociatedTokenAddressSync(new PublicKey(USDC), w.publicKey);
    expect(ata.keys.slice(0, 3).map((k) => k.pubkey.toBase58())).toEqual([gas, account.toBase58(), me]);

    // The id is known before the owner signs: it is what the node answers for the owner's bytes.
    expect(await send(buy.transaction, w)).toBe(transactionId(tx));
    expect(await balances(sim, me)).toEqual({ lamports: 0n, tokens: { [USDC]: 10_000_000n } });
    await control(sim, '/orders/fill', { order: buy.order.orderPubkey });
    const [position] = (await jup.prediction.getPredictionPositions({ ownerPubkey: me })).data;
    expect(position!.contractsMicro).toBeGreaterThan(0n);

    const sell = await order({ isBuy: false, ownerPubkey: me, positionPubkey: position!.pubkey, isYes: true, contractsMicro: position!.contractsMicro!.toString(), minSellPriceUsd: '10000' });
    const sellTx = VersionedTransaction.deserialize(Buffer.from(sell.transaction, 'base64'));
    expect(sell.isGasless).toBe(true);
    expect(createOrderOf(sellTx)).toMatchObject({ accounts: { payer: gas, owner: me }, args: { isBuy: false } });
    expect(await send(sell.transaction, w)).toBe(transactionId(sellTx));
    await control(sim, '/orders/fill', { order: sell.order.orderPubkey });
    const after = await balances(sim, me);
    expect(after.lamports).toBe(0n);
    expect(after.tokens[USDC]).toBeGreaterThan(10_000_000n);
    // The gas payer paid both fees.
    expect((await balances(sim, gas)).lamports).toBeLessThan(gasBefore);
  });
});
