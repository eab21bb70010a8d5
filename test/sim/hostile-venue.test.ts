// The hostile venue's own tests: every attack it serves is a transaction that really succeeds on the simulator and
// does what it says (simulated against the simulator's RPC with sigVerify false, and landed once the wallet signs
// it), so an acceptance test cannot pass because an attack was broken. Also: honest traffic passes unchanged,
// plans select the right requests, signatures and requests are recorded, RPC faults and holds work.
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemProgram, VersionedTransaction, type Keypair, type PublicKey } from '@solana/web3.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { readTokenAccount, type AccountSnapshot } from '../../src/solana/guardChanges.js';
import { ACCEPTANCE_ATTACKS, HOSTILE_PRIORITY_FEE, HOSTILE_PROGRAM, feedWorth, startHostileVenue, type Attack, type AttackRecord, type Flow, type HostileVenue } from '../helpers/hostileVenue.js';
import { BONK, fundedWallet, JUP, openTokenAccount, SOL, startTestSim, USDC } from '../helpers/sim.js';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

type Accounts = Map<string, AccountSnapshot | null>;

interface Served {
  wallet: Keypair;
  record: AttackRecord;
  tx: VersionedTransaction;
  /** The order (Ultra) or the quote and the swap (Metis) as the keeper would read them. */
  order?: Record<string, unknown>;
  quote?: Record<string, unknown>;
  swap?: Record<string, unknown>;
  emptyAccount?: string;
}

describe('the hostile venue', () => {
  let sim: RunningSimulator;
  let venue: HostileVenue;
  let nextAmount = 5_000_000n;
  const amount = () => (nextAmount += 1_000n);

  beforeAll(async () => {
    sim = await startTestSim();
    venue = await startHostileVenue(sim);
  });
  afterAll(async () => {
    await venue?.close();
    await sim?.close();
  });

  const rpc = async <T>(method: string, params: unknown[], url = sim.rpcUrl): Promise<T> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const json = (await res.json()) as { result?: T; error?: { message: string } };
    if (json.error) throw new Error(`${method}: ${json.error.message}`);
    return json.result as T;
  };
  const getJson = async (path: string): Promise<Record<string, unknown>> => {
    const res = await fetch(`${venue.url}${path}`);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const postJson = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${venue.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as Record<string, unknown>;
  };

  /** Asks the proxy for a USDC->SOL trade of `inAmount` the way the keeper does (order, or quote then swap). */
  const request = async (via: Flow, wallet: Keypair, inAmount: bigint, pair: [string, string] = [USDC, SOL]): Promise<Omit<Served, 'record' | 'wallet'>> => {
    const taker = wallet.publicKey.toBase58();
    const [inputMint, outputMint] = pair;
    if (via === 'ultra') {
      const order = await getJson(`/ultra/v1/order?inputMint=${inputMint}&outputMint=${outputMint}&amount=${inAmount}&taker=${taker}`);
      return { order, tx: VersionedTransaction.deserialize(Buffer.from(String(order.transaction), 'base64')) };
    }
    const quote = await getJson(`/swap/v1/quote?inputMint=${inputMint}&outputMint=${outputMint}&amount=${inAmount}&slippageBps=50`);
    const swap = await postJson('/swap/v1/swap', { userPublicKey: taker, quoteResponse: quote, dynamicComputeUnitLimit: true });
    return { quote, swap, tx: VersionedTransaction.deserialize(Buffer.from(String(swap.swapTransaction), 'base64')) };
  };

  /** A fresh wallet (2 SOL, 100 USDC, an empty JUP account), and one attack served to it. */
  const serve = async (via: Flow, attack: Attack, pair: [string, string] = [USDC, SOL]): Promise<Served> => {
    const wallet = await fundedWallet(sim, 2_000_000_000n, [[USDC, 100_000_000n]]);
    const emptyAccount = openTokenAccount(sim, wallet, JUP);
    const inAmount = amount();
    venue.plan({ attack, via, amount: inAmount, count: 1 });
    const got = await request(via, wallet, inAmount, pair);
    const record = venue.attacks().find((r) => r.amount === inAmount);
    expect(record, 'the plan picked the request').toBeDefined();
    expect(record!.error).toBeUndefined();
    expect(record!.served).toBe(true);
    expect(Buffer.from(got.tx.message.serialize()).toString('base64')).toBe(record!.message);
    expect(got.tx.signatures.every((s) => s.every((b) => b === 0)), 'served unsigned').toBe(true);
    return { wallet, record: record!, emptyAccount, ...got };
  };

  const accountsNow = async (keys: string[]): Promise<Accounts> => {
    const r = await rpc<{ value: Array<{ lamports: number; owner: string; data: [string, string] } | null> }>('getMultipleAccounts', [keys, { encoding: 'base64' }]);
    return new Map(keys.map((k, i) => [k, snapshot(r.value[i] ?? null)]));
  };

  /** Simulates against the simulator's own RPC with sigVerify false; the post-state of every static account. */
  const simulate = async (tx: VersionedTransaction, extra: string[]): Promise<{ pre: Accounts; post: Accounts }> => {
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    const all = [...new Set([...keys, ...extra])];
    const pre = await accountsNow(all);
    const r = await rpc<{ value: { err: unknown; logs: string[]; accounts: Array<{ lamports: number; owner: string; data: [string, string] } | null> } }>('simulateTransaction', [
      Buffer.from(tx.serialize()).toString('base64'),
      { encoding: 'base64', sigVerify: false, accounts: { encoding: 'base64', addresses: keys } },
    ]);
    expect(r.value.err, `the attack fails in simulation: ${r.value.logs.join('\n')}`).toBeNull();
    const post: Accounts = new Map(pre);
    keys.forEach((k, i) => post.set(k, snapshot(r.value.accounts[i] ?? null)));
    return { pre, post };
  };

  /** Signs with the wallet and sends through the proxy as the keeper would; returns the states before and after. */
  const landThroughProxy = async (via: Flow, served: Served, extra: string[]): Promise<{ pre: Accounts; post: Accounts; signature: string }> => {
    const keys = [...new Set([...served.tx.message.staticAccountKeys.map((k) => k.toBase58()), ...extra])];
    const pre = await accountsNow(keys);
    const signed = VersionedTransaction.deserialize(served.tx.serialize());
    signed.sign([served.wallet]);
    const b64 = Buffer.from(signed.serialize()).toString('base64');
    let signature: string;
    if (via === 'ultra') {
      const r = await postJson('/ultra/v1/execute', { signedTransaction: b64, requestId: served.record.requestId });
      expect(r.status, JSON.stringify(r)).toBe('Success');
      signature = String(r.signature);
    } else {
      signature = await rpc<string>('sendTransaction', [b64, { encoding: 'base64' }], `${venue.url}/rpc`);
    }
    expect(signature).toBe(bs58.encode(signed.signatures[0]!));
    expect(served.record.landed).toContain(signature);
    const seen = venue.signatures({ signer: served.wallet.publicKey.toBase58(), validOnly: true });
    expect(seen.map((s) => s.signature)).toContain(signature);
    return { pre, post: await accountsNow(keys), signature };
  };

  describe.each(['ultra', 'metis'] as const)('%s', (via) => {
    it.each(ACCEPTANCE_ATTACKS)('serves $label as a transaction that succeeds and does what it says', async ({ attack }) => {
      const served = await serve(via, attack);
      const w = served.wallet.publicKey.toBase58();
      const s = venue.stranger.publicKey.toBase58();
      const usdcAta = sim.ctx.state.venue.ata(served.wallet.publicKey, sim.ctx.state.venue.token(USDC)!).toBase58();
      const bonkAta = sim.ctx.state.venue.ata(served.wallet.publicKey, sim.ctx.state.venue.token(BONK)!).toBase58();
      const watched = [w, s, usdcAta, bonkAta, served.emptyAccount!];
      const payout = vaultPayout(served.tx, sim.ctx.state.venue.vault.publicKey);
      const fees = 5_000n * BigInt(served.tx.message.header.numRequiredSignatures);
      checkFields(via, attack, served, payout);

      const simulated = await simulate(served.tx, watched);
      const landed = await landThroughProxy(via, served, watched);
      for (const [what, { pre, post }] of [['simulation', simulated], ['landing', landed]] as const) {
        const at = (m: Accounts, k: string) => m.get(k) ?? null;
        const lamports = (m: Accounts, k: string) => at(m, k)?.lamports ?? 0n;
        const walletDelta = lamports(post, w) - lamports(pre, w);
        const label = `${attack.kind} (${what})`;
        switch (attack.kind) {
          case 'sol-transfer':
            expect(lamports(post, s) - lamports(pre, s), label).toBe(attack.lamports);
            break;
          case 'allocate':
            expect(at(post, w)?.data.length, label).toBe(128);
            expect(at(post, w)?.owner, label).toBe(SystemProgram.programId.toBase58());
            break;
          case 'assign':
            expect(at(post, w)?.owner, label).toBe(HOSTILE_PROGRAM.toBase58());
            break;
          case 'approve':
            expect(readTokenAccount(at(post, usdcAta))?.delegate, label).toBe(s);
            break;
          case 'set-authority': {
            const acc = readTokenAccount(at(post, usdcAta));
            if (attack.authority === 'owner') expect(acc?.owner, label).toBe(s);
            else expect(acc?.closeAuthority, label).toBe(s);
            break;
          }
          case 'close-account': {
            if (attack.create) {
              // The wallet pays the rent of a new account, which goes to the stranger when it is closed.
              const rent = sim.ctx.state.venue.chain.rentExempt(165);
              expect(lamports(post, s) - lamports(pre, s), label).toBe(rent);
              expect(at(post, served.emptyAccount!), `${label}: the existing empty account is left alone`).not.toBeNull();
              break;
            }
            const before = at(pre, served.emptyAccount!);
            expect(readTokenAccount(before)?.owner, label).toBe(w);
            expect(readTokenAccount(before)?.amount, label).toBe(0n);
            expect(at(post, served.emptyAccount!), label).toBeNull();
            expect(lamports(post, s) - lamports(pre, s), label).toBe(before!.lamports);
            break;
          }
          case 'priority-fee':
            // The wallet gets the payout and pays the base fees plus the whole priority fee.
            expect(walletDelta, label).toBe(payout - fees - HOSTILE_PRIORITY_FEE);
            break;
          case 'output-mint':
            expect(served.record.outputMint).toBe(BONK);
            expect(readTokenAccount(at(post, bonkAta))?.amount ?? 0n, label).toBe(payout);
            expect(payout).toBeGreaterThan(0n);
            expect(walletDelta, `${label}: no SOL comes in`).toBeLessThan(0n);
            break;
          case 'inflow-short': {
            const v = sim.ctx.state.venue;
            const worth = feedWorth(v, v.token(USDC)!, v.token(SOL)!, served.record.amount);
            expect(payout * 10_000n, label).toBeLessThanOrEqual(worth * 9_500n);
            expect(walletDelta, label).toBe(payout - fees - priorityFeeOf(served.tx));
            break;
          }
          case 'split-input':
            break;
          case 'extra-signer': {
            const signers = served.tx.message.staticAccountKeys.slice(0, served.tx.message.header.numRequiredSignatures).map((k) => k.toBase58());
            expect(signers, label).toContain(s);
            expect(signers, label).toHaveLength(3);
            break;
          }
        }
      }
      // The signed attack settled on the simulator, in the wallet's name.
      const statuses = await rpc<{ value: Array<{ err: unknown } | null> }>('getSignatureStatuses', [[landed.signature], { searchTransactionHistory: true }]);
      expect(statuses.value[0], 'the signature has a status').toBeTruthy();
      expect(statuses.value[0]!.err).toBeNull();
    });
  });

  describe.each(['ultra', 'metis'] as const)('%s, a payment split between the counterparty and the stranger', (via) => {
    it.each([
      { pair: [USDC, SOL] as [string, string], cut: 1n },
      { pair: [USDC, SOL] as [string, string], cut: 100_000n },
      { pair: [SOL, USDC] as [string, string], cut: 1n },
    ])('takes $cut of $pair.0 for the stranger, the total and the payout unchanged', async ({ pair, cut }) => {
      const served = await serve(via, { kind: 'split-input', cut }, pair);
      const v = sim.ctx.state.venue;
      const input = v.token(pair[0])!;
      const output = v.token(pair[1])!;
      const w = served.wallet.publicKey;
      const payout = vaultPayout(served.tx, v.vault.publicKey);
      // What the wallet, the vault and the stranger hold of the input (lamports for SOL), and the wallet's output.
      const holding = (owner: PublicKey, t: typeof input) => (v.isSol(t.mint) ? v.chain.lamports(owner) : (v.chain.tokenAccount(v.ata(owner, t))?.amount ?? 0n));
      const before = { wallet: holding(w, input), vault: holding(v.vault.publicKey, input), stranger: holding(venue.stranger.publicKey, input), out: holding(w, output) };
      await simulate(served.tx, []);
      await landThroughProxy(via, served, []);
      const after = { wallet: holding(w, input), vault: holding(v.vault.publicKey, input), stranger: holding(venue.stranger.publicKey, input), out: holding(w, output) };
      expect(after.stranger - before.stranger).toBe(cut);
      expect(after.vault - before.vault).toBe(served.record.amount - cut);
      if (!v.isSol(input.mint)) expect(before.wallet - after.wallet).toBe(served.record.amount);
      if (!v.isSol(output.mint)) expect(after.out - before.out).toBe(payout);
      else expect(after.out - before.out).toBe(payout - 5_000n * BigInt(served.tx.message.header.numRequiredSignatures) - priorityFeeOf(served.tx));
    });
  });

  /** The response fields lie with the transaction. */
  function checkFields(via: Flow, attack: Attack, served: Served, payout: bigint): void {
    const shown = via === 'ultra' ? served.order! : served.quote!;
    switch (attack.kind) {
      case 'sol-transfer':
        if (via === 'ultra') expect(BigInt(Number(served.order!.rentFeeLamports))).toBeGreaterThanOrEqual(attack.lamports);
        else expect(BigInt(Number(served.swap!.prioritizationFeeLamports))).toBeGreaterThanOrEqual(attack.lamports);
        break;
      case 'priority-fee': {
        const body = via === 'ultra' ? served.order! : served.swap!;
        expect(BigInt(Number(body.prioritizationFeeLamports))).toBe(HOSTILE_PRIORITY_FEE);
        expect(priorityFeeOf(served.tx)).toBe(HOSTILE_PRIORITY_FEE);
        break;
      }
      case 'output-mint':
        expect(shown.outputMint, 'the response claims the asked mint').toBe(SOL);
        expect(BigInt(String(shown.outAmount))).toBeGreaterThan(0n);
        break;
      case 'inflow-short':
        if (via === 'ultra') expect(BigInt(String(shown.outAmount))).toBe(payout);
        else expect(BigInt(String(shown.outAmount))).toBeLessThanOrEqual(payout);
        expect(BigInt(String(shown.otherAmountThreshold))).toBeLessThanOrEqual(BigInt(String(shown.outAmount)));
        break;
      default:
        expect(shown.outputMint).toBe(SOL);
    }
  }

  it('passes honest orders through unchanged, and they settle through it', async () => {
    const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
    const before = venue.attacks().length;
    const order = await getJson(`/ultra/v1/order?inputMint=${USDC}&outputMint=${SOL}&amount=1000000&taker=${wallet.publicKey.toBase58()}`);
    expect(venue.attacks()).toHaveLength(before);
    const tx = VersionedTransaction.deserialize(Buffer.from(String(order.transaction), 'base64'));
    tx.sign([wallet]);
    const r = await postJson('/ultra/v1/execute', { signedTransaction: Buffer.from(tx.serialize()).toString('base64'), requestId: order.requestId });
    expect(r.status).toBe('Success');
    const seen = venue.signatures({ signer: wallet.publicKey.toBase58() });
    expect(seen).toEqual([expect.objectContaining({ signature: bs58.encode(tx.signatures[0]!), valid: true, source: 'execute', requestId: order.requestId })]);
  });

  it('attacks every other matching order when the plan says so, and only as many as counted', async () => {
    const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
    const inAmount = amount();
    venue.plan({ attack: { kind: 'sol-transfer', lamports: 1n }, via: 'ultra', amount: inAmount, every: 2, count: 2 });
    const transfers: boolean[] = [];
    for (let i = 0; i < 6; i += 1) {
      const { tx } = await request('ultra', wallet, inAmount);
      transfers.push(hasTransferTo(tx, venue.stranger.publicKey));
    }
    expect(transfers).toEqual([true, false, true, false, false, false]);
    // A Metis quote of the same amount is not an Ultra order.
    const { tx } = await request('metis', wallet, inAmount);
    expect(hasTransferTo(tx, venue.stranger.publicKey)).toBe(false);
  });

  it('counts requests by kind and records the signatures in RPC calls', async () => {
    const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
    const c0 = venue.counts();
    const { tx } = await request('metis', wallet, amount());
    await rpc('simulateTransaction', [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64', sigVerify: false }], `${venue.url}/rpc`);
    tx.sign([wallet]);
    const sig = await rpc<string>('sendTransaction', [bs58.encode(tx.serialize())], `${venue.url}/rpc`);
    const c1 = venue.counts();
    expect(c1.quotes - c0.quotes).toBe(1);
    expect(c1.swaps - c0.swaps).toBe(1);
    expect(c1.builds - c0.builds).toBe(2);
    expect(c1.orders - c0.orders).toBe(0);
    expect((c1.rpc.simulateTransaction ?? 0) - (c0.rpc.simulateTransaction ?? 0)).toBe(1);
    expect((c1.rpc.sendTransaction ?? 0) - (c0.rpc.sendTransaction ?? 0)).toBe(1);
    // The unsigned simulation carries no signature; the base58 send carries the wallet's.
    expect(venue.signatures({ signer: wallet.publicKey.toBase58() })).toEqual([expect.objectContaining({ signature: sig, valid: true, source: 'sendTransaction' })]);
  });

  it('answers BlockhashNotFound to simulateTransaction for the next N calls, then forwards again', async () => {
    const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
    const { tx } = await request('ultra', wallet, amount());
    const b64 = Buffer.from(tx.serialize()).toString('base64');
    const before = venue.counts().faulted;
    venue.rpcFault({ method: 'simulateTransaction', err: 'BlockhashNotFound', count: 2 });
    const errs: unknown[] = [];
    for (let i = 0; i < 3; i += 1) {
      const r = await rpc<{ context: { slot: number }; value: { err: unknown; accounts: unknown } }>('simulateTransaction', [b64, { encoding: 'base64', sigVerify: false, accounts: { encoding: 'base64', addresses: [wallet.publicKey.toBase58()] } }], `${venue.url}/rpc`);
      expect(r.context.slot).toBeGreaterThanOrEqual(0);
      errs.push(r.value.err);
    }
    expect(errs).toEqual(['BlockhashNotFound', 'BlockhashNotFound', null]);
    expect(venue.counts().faulted - before).toBe(2);
  });

  it('answers BlockhashNotFound for a time', async () => {
    const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
    const { tx } = await request('ultra', wallet, amount());
    const b64 = Buffer.from(tx.serialize()).toString('base64');
    const started = Date.now();
    venue.rpcFault({ method: 'simulateTransaction', err: 'BlockhashNotFound', durationMs: 1_500 });
    const first = await rpc<{ value: { err: unknown } }>('simulateTransaction', [b64, { encoding: 'base64', sigVerify: false }], `${venue.url}/rpc`);
    // A time-based fault can only be tested against the clock: the first call is inside the window unless the
    // machine stalled for 1.5 s, and the second waits until the window has passed.
    if (Date.now() - started < 1_500) expect(first.value.err).toBe('BlockhashNotFound');
    await new Promise((r) => setTimeout(r, Math.max(0, 1_520 - (Date.now() - started))));
    const later = await rpc<{ value: { err: unknown } }>('simulateTransaction', [b64, { encoding: 'base64', sigVerify: false }], `${venue.url}/rpc`);
    expect(later.value.err).toBeNull();
  });

  it('holds build requests until released', async () => {
    const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
    const hold = venue.hold();
    let answered = false;
    const pending = request('ultra', wallet, amount()).then((r) => {
      answered = true;
      return r;
    });
    await hold.waitForCaught(1, 10_000);
    expect(hold.held()).toBe(1);
    // Other requests pass meanwhile.
    await rpc('getSlot', [], `${venue.url}/rpc`);
    expect(answered).toBe(false);
    hold.release();
    const { tx } = await pending;
    expect(tx.message.header.numRequiredSignatures).toBe(2);
    expect(hold.held()).toBe(0);
  });
});

function snapshot(a: { lamports: number; owner: string; data: [string, string] } | null): AccountSnapshot | null {
  return a ? { lamports: BigInt(a.lamports), owner: a.owner, data: Buffer.from(a.data[0], 'base64') } : null;
}

/** The amount the vault pays the wallet in a venue transaction (SOL transfer or token transferChecked). */
function vaultPayout(tx: VersionedTransaction, vault: PublicKey): bigint {
  const keys = tx.message.staticAccountKeys;
  for (const ix of tx.message.compiledInstructions) {
    const program = keys[ix.programIdIndex]!.toBase58();
    const accounts = ix.accountKeyIndexes.map((i) => keys[i]!);
    const data = Buffer.from(ix.data);
    if (program === SystemProgram.programId.toBase58() && data.readUInt32LE(0) === 2 && accounts[0]!.equals(vault)) return data.readBigUInt64LE(4);
    if (program === TOKEN_PROGRAM && data[0] === 12 && accounts[3]?.equals(vault)) return data.readBigUInt64LE(1);
  }
  throw new Error('no payout by the vault');
}

/** Priority fee a transaction pays: compute-unit price times limit, in lamports. */
function priorityFeeOf(tx: VersionedTransaction): bigint {
  const keys = tx.message.staticAccountKeys;
  let units = 0n;
  let micro = 0n;
  for (const ix of tx.message.compiledInstructions) {
    if (keys[ix.programIdIndex]!.toBase58() !== 'ComputeBudget111111111111111111111111111111') continue;
    const data = Buffer.from(ix.data);
    if (data[0] === 2) units = BigInt(data.readUInt32LE(1));
    if (data[0] === 3) micro = data.readBigUInt64LE(1);
  }
  return (units * micro + 999_999n) / 1_000_000n;
}

function hasTransferTo(tx: VersionedTransaction, to: PublicKey): boolean {
  const keys = tx.message.staticAccountKeys;
  return tx.message.compiledInstructions.some((ix) => keys[ix.programIdIndex]!.equals(SystemProgram.programId) && ix.accountKeyIndexes.some((i) => keys[i]!.equals(to)));
}
