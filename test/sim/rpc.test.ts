import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '@solana/web3.js';
import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import type { RunningSimulator } from '../../src/sim/server.js';
import { startSimulator } from '../../src/sim/server.js';
import { airdrop, control, simConnection, USDC } from '../helpers/sim.js';

/** A JSON-RPC answer. */
interface RpcAnswer {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** A raw JSON-RPC exchange: the body (a string is sent as it is), the parsed answer (an array for a batch). */
async function rpc<T = RpcAnswer>(sim: RunningSimulator, body: unknown): Promise<T> {
  const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

function transfer(from: Keypair, to: PublicKey, lamports: number, blockhash: string): VersionedTransaction {
  const message = new TransactionMessage({ payerKey: from.publicKey, recentBlockhash: blockhash, instructions: [SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports })] }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([from]);
  return tx;
}

describe('the simulator as a Solana RPC node for web3.js', () => {
  let sim: RunningSimulator;
  let conn: Connection;
  const alice = Keypair.generate();
  const bob = Keypair.generate();

  beforeAll(async () => {
    sim = await startSimulator({ seed: 11, clockSpeed: 0 });
    conn = simConnection(sim);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('gives a blockhash that stays valid for 150 blocks from the tip', async () => {
    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
    expect(blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(lastValidBlockHeight).toBe((await conn.getBlockHeight()) + 150);
    expect(await conn.isBlockhashValid(blockhash)).toMatchObject({ value: true });
    expect(await conn.getSlot()).toBeGreaterThan(await conn.getBlockHeight());
    expect((await conn.getVersion())['solana-core']).toMatch(/^2\.\d+\.\d+$/);
    expect(await conn.getGenesisHash()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect((await conn.getEpochInfo()).slotsInEpoch).toBe(432_000);
  });

  it('funds a wallet through requestAirdrop, confirmed with the blockhash strategy', async () => {
    const latest = await conn.getLatestBlockhash();
    const signature = await conn.requestAirdrop(alice.publicKey, 2 * LAMPORTS_PER_SOL);
    const confirmed = await conn.confirmTransaction({ signature, ...latest });
    expect(confirmed.value.err).toBeNull();
    expect(await conn.getBalance(alice.publicKey)).toBe(2 * LAMPORTS_PER_SOL);
  });

  describe('when a signed transfer is sent', () => {
    let signature: string;
    let raw: Uint8Array;

    it('lands once, and sending the same transaction again moves nothing more', async () => {
      const latest = await conn.getLatestBlockhash();
      const tx = transfer(alice, bob.publicKey, 0.5 * LAMPORTS_PER_SOL, latest.blockhash);
      raw = tx.serialize();
      signature = await conn.sendTransaction(tx);
      await conn.confirmTransaction({ signature, ...latest });
      expect(await conn.getBalance(bob.publicKey)).toBe(0.5 * LAMPORTS_PER_SOL);
      expect(await conn.getBalance(alice.publicKey)).toBe(1.5 * LAMPORTS_PER_SOL - 5000);

      expect(await conn.sendRawTransaction(raw)).toBe(signature);
      expect(await conn.getBalance(bob.publicKey)).toBe(0.5 * LAMPORTS_PER_SOL);
    });

    it('reports the status and the transaction', async () => {
      const status = await conn.getSignatureStatus(signature, { searchTransactionHistory: true });
      expect(status.value).toMatchObject({ err: null, confirmationStatus: 'confirmed' });
      const tx = await conn.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
      expect(tx?.meta?.err).toBeNull();
      expect(tx?.meta?.fee).toBe(5000);
      expect(tx?.meta?.logMessages?.length).toBeGreaterThan(0);
      expect(tx?.blockTime).toBeGreaterThan(1_600_000_000);
      const parsed = await conn.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
      expect(parsed?.transaction.signatures[0]).toBe(signature);
      const listed = await conn.getSignaturesForAddress(bob.publicKey, {}, 'confirmed');
      expect(listed.map((s) => s.signature)).toContain(signature);
    });

    it('refuses a v0 transaction to a client that does not say it reads v0', async () => {
      await expect(conn.getTransaction(signature, { commitment: 'confirmed' } as never)).rejects.toThrow(/maxSupportedTransactionVersion/);
    });
  });

  it('refuses at preflight a transfer that would fail, so that it never lands, and lands it with skipPreflight', async () => {
    const payer = Keypair.generate();
    const latest = await conn.getLatestBlockhash();
    await conn.confirmTransaction({ signature: await conn.requestAirdrop(payer.publicKey, 10_000_000), ...latest });
    const tooMuch = transfer(payer, bob.publicKey, LAMPORTS_PER_SOL, latest.blockhash);
    const err = await conn.sendTransaction(tooMuch).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SendTransactionError);
    expect((err as Error).message).toContain('Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
    expect(await conn.getBalance(payer.publicKey)).toBe(10_000_000);

    const signature = await conn.sendTransaction(tooMuch, { skipPreflight: true });
    const status = await conn.getSignatureStatus(signature);
    expect(status.value?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await conn.getBalance(payer.publicKey)).toBe(10_000_000 - 5000);
  });

  it('lists USDC airdropped through the control API as a parsed token account', async () => {
    const owner = Keypair.generate();
    await airdrop(sim, owner, USDC, 25_500_000n);
    const { value } = await conn.getParsedTokenAccountsByOwner(owner.publicKey, { mint: new PublicKey(USDC) });
    expect(value).toHaveLength(1);
    expect(value[0]!.account.data).toMatchObject({
      program: 'spl-token',
      space: 165,
      parsed: { type: 'account', info: { mint: USDC, owner: owner.publicKey.toBase58(), state: 'initialized', isNative: false, tokenAmount: { amount: '25500000', decimals: 6, uiAmount: 25.5, uiAmountString: '25.5' } } },
    });
    const balance = await conn.getTokenAccountBalance(value[0]!.pubkey);
    expect(balance.value.amount).toBe('25500000');
    const raw = await conn.getTokenAccountsByOwner(owner.publicKey, { programId: new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') });
    expect(raw.value[0]!.account.data).toHaveLength(165);
    expect((await conn.getTokenSupply(new PublicKey(USDC))).value.decimals).toBe(6);
    const mint = await conn.getParsedAccountInfo(new PublicKey(USDC));
    expect(mint.value?.data).toMatchObject({ program: 'spl-token', parsed: { type: 'mint', info: { decimals: 6, isInitialized: true } } });
    const [acc, missing] = await conn.getMultipleAccountsInfo([value[0]!.pubkey, Keypair.generate().publicKey]);
    expect(acc?.owner.toBase58()).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(missing).toBeNull();
  });

  it('answers the fee, rent and priority-fee questions a client asks before sending', async () => {
    const { blockhash } = await conn.getLatestBlockhash();
    const message = new TransactionMessage({ payerKey: alice.publicKey, recentBlockhash: blockhash, instructions: [SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: bob.publicKey, lamports: 1 })] }).compileToV0Message();
    expect((await conn.getFeeForMessage(message)).value).toBe(5000);
    expect(await conn.getMinimumBalanceForRentExemption(165)).toBe(2_039_280);
    const fees = await conn.getRecentPrioritizationFees({ lockedWritableAccounts: [alice.publicKey] });
    expect(fees).toHaveLength(150);
    expect(fees.every((f) => Number.isInteger(f.prioritizationFee) && f.prioritizationFee >= 0)).toBe(true);
  });

  it('takes a transaction in base58, the default encoding of sendTransaction', async () => {
    const { blockhash } = await conn.getLatestBlockhash();
    const tx = transfer(alice, bob.publicKey, 2_000, blockhash);
    const answer = await rpc(sim, { jsonrpc: '2.0', id: 3, method: 'sendTransaction', params: [bs58.encode(tx.serialize())] });
    expect(answer).toEqual({ jsonrpc: '2.0', id: 3, result: bs58.encode(tx.signatures[0]!) });
  });

  it('simulates an unsigned transaction without signature checks and returns the accounts after it', async () => {
    const carol = Keypair.generate();
    const { blockhash } = await conn.getLatestBlockhash();
    const message = new TransactionMessage({ payerKey: alice.publicKey, recentBlockhash: blockhash, instructions: [SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: carol.publicKey, lamports: 7_000_000 })] }).compileToV0Message();
    const unsigned = new VersionedTransaction(message);
    const before = await conn.getBalance(alice.publicKey);
    const sim1 = await conn.simulateTransaction(unsigned, { sigVerify: false, accounts: { encoding: 'base64', addresses: [carol.publicKey.toBase58(), alice.publicKey.toBase58()] } });
    expect(sim1.value.err).toBeNull();
    expect(sim1.value.unitsConsumed).toBeGreaterThan(0);
    expect(sim1.value.logs?.length).toBeGreaterThan(0);
    expect(sim1.value.accounts?.[0]?.lamports).toBe(7_000_000);
    expect(sim1.value.accounts?.[1]?.lamports).toBe(before - 7_000_000 - 5000);
    expect(await conn.getBalance(carol.publicKey)).toBe(0);

    const replaced = await conn.simulateTransaction(unsigned, { replaceRecentBlockhash: true });
    expect(replaced.value.err).toBeNull();
    await expect(conn.simulateTransaction(unsigned, { sigVerify: true })).rejects.toThrow(/signature verification failure/);
  });

  describe('when the blockhash has expired', () => {
    it('refuses the transaction with BlockhashNotFound', async () => {
      const { blockhash } = await conn.getLatestBlockhash();
      const tx = transfer(alice, bob.publicKey, 1_000, blockhash);
      await control(sim, '/clock', { advanceMs: 120_000 });
      const err = await conn.sendTransaction(tx).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SendTransactionError);
      expect((err as Error).message).toContain('Blockhash not found');
      const answer = await rpc(sim, { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64' }] });
      expect(answer.error?.code).toBe(-32002);
      expect(answer.error?.data).toEqual({ err: 'BlockhashNotFound', logs: [], accounts: null, unitsConsumed: 0, returnData: null });
      expect(await conn.isBlockhashValid(blockhash)).toMatchObject({ value: false });
    });
  });

  describe('when requests are malformed', () => {
    const garbageTx = Buffer.from('not a transaction at all').toString('base64');
    const cases: Array<[string, unknown, number, RegExp?]> = [
      ['a body that is not JSON', '{"jsonrpc": "2.0", "id": 1, "method": ', -32700],
      ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'getSlot' }, -32600],
      ['a request without a method', { jsonrpc: '2.0', id: 1 }, -32600],
      ['an empty batch', [], -32600],
      ['an unknown method', { jsonrpc: '2.0', id: 1, method: 'getEverything' }, -32601],
      ['a number where a pubkey goes', { jsonrpc: '2.0', id: 1, method: 'getBalance', params: [42] }, -32602, /pubkey/],
      ['an invalid pubkey', { jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: ['not-a-key'] }, -32602, /pubkey/],
      ['a wrong config type', { jsonrpc: '2.0', id: 1, method: 'getBalance', params: [PublicKey.default.toBase58(), { commitment: 'soon' }] }, -32602, /config\.commitment/],
      ['named instead of positional params', { jsonrpc: '2.0', id: 1, method: 'getBalance', params: { pubkey: PublicKey.default.toBase58() } }, -32602, /positional/],
      ['too many params', { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{}, 1, 2] }, -32602],
      ['garbage base64 as a transaction', { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [garbageTx, { encoding: 'base64' }] }, -32602, /deserialize/],
      ['base64 with bad characters', { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['***', { encoding: 'base64' }] }, -32602, /base64/],
      ['a bad signature to look up', { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [['abc']] }, -32602, /signatures\.0/],
      ['a negative airdrop', { jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params: [PublicKey.default.toBase58(), -5] }, -32602, /lamports/],
    ];
    for (const [name, body, code, message] of cases) {
      it(`answers ${name} with ${code}`, async () => {
        const answer = await rpc(sim, body);
        expect(answer.error?.code).toBe(code);
        if (message) expect(answer.error?.message).toMatch(message);
        expect((await rpc(sim, { jsonrpc: '2.0', id: 2, method: 'getHealth' })).result).toBe('ok');
      });
    }

    it('answers a batch entry by entry', async () => {
      const answer = await rpc<RpcAnswer[]>(sim, [{ jsonrpc: '2.0', id: 1, method: 'getHealth' }, { jsonrpc: '2.0', id: 2, method: 'nope' }, { jsonrpc: '2.0', method: 'getSlot' }]);
      expect(answer).toEqual([{ jsonrpc: '2.0', id: 1, result: 'ok' }, { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } }]);
    });

    it('answers a transaction signed by the wrong key with -32003', async () => {
      const { blockhash } = await conn.getLatestBlockhash();
      const tx = transfer(alice, bob.publicKey, 1_000, blockhash);
      tx.signatures[0] = new Uint8Array(64).fill(9);
      const answer = await rpc(sim, { jsonrpc: '2.0', id: 7, method: 'sendTransaction', params: [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64' }] });
      expect(answer).toMatchObject({ id: 7, error: { code: -32003, message: 'Transaction signature verification failure' } });
    });
  });
});
