import { Connection, Keypair, PublicKey, VersionedTransaction, type Commitment } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { tokenProgramId } from '../../src/sim/catalog.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/sim/server.js';

export const SOL = 'So11111111111111111111111111111111111111112';
export const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
export const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';

/** Starts a simulator for a test file (frozen clock unless asked otherwise). */
export function startTestSim(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  return startSimulator({ seed: 42, clockSpeed: 0, ...options });
}

/**
 * A web3.js Connection to the simulator's RPC with its PubSub at /rpc. Without a wsEndpoint web3.js looks on the RPC
 * port + 1, which the simulator serves only when that port is free: on a busy machine it may be another process's.
 */
export function simConnection(sim: RunningSimulator, commitment: Commitment = 'confirmed'): Connection {
  return new Connection(sim.rpcUrl, { commitment, wsEndpoint: sim.rpcUrl.replace(/^http/, 'ws') });
}

/** POSTs JSON to a control endpoint and returns the parsed answer (throws on a non-2xx status). */
export async function control<T = unknown>(sim: RunningSimulator, path: string, body?: unknown, method = 'POST'): Promise<T> {
  const res = await fetch(`${sim.url}/__sim${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`control ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Funds a wallet with a token (or SOL) through the control API. */
export async function airdrop(sim: RunningSimulator, wallet: Keypair | string, mint: string, amount: bigint): Promise<string> {
  const address = typeof wallet === 'string' ? wallet : wallet.publicKey.toBase58();
  const r = await control<{ signature: string }>(sim, '/airdrop', { wallet: address, mint, amount: amount.toString() });
  return r.signature;
}

/** A fresh wallet funded with SOL (and optionally other tokens). */
export async function fundedWallet(sim: RunningSimulator, lamports = 2_000_000_000n, tokens: Array<[string, bigint]> = []): Promise<Keypair> {
  const kp = Keypair.generate();
  if (lamports > 0n) await airdrop(sim, kp, SOL, lamports);
  for (const [mint, amount] of tokens) await airdrop(sim, kp, mint, amount);
  return kp;
}

/** A ledger entry of GET /__sim/ledger. */
export interface LedgerTx {
  signature: string;
  kind: string;
  wallet: string;
  requestId: string | null;
  slot: number;
  inputMint: string | null;
  inputAmount: string | null;
  outputMint: string | null;
  outputAmount: string | null;
}

/** The settlement ledger. */
export async function ledger(sim: RunningSimulator): Promise<LedgerTx[]> {
  const r = await control<{ transactions: LedgerTx[] }>(sim, '/ledger', undefined, 'GET');
  return r.transactions;
}

/** A wallet's balances from the control API: lamports and token amounts by mint. */
export async function balances(sim: RunningSimulator, wallet: Keypair | string): Promise<{ lamports: bigint; tokens: Record<string, bigint> }> {
  const address = typeof wallet === 'string' ? wallet : wallet.publicKey.toBase58();
  const r = await control<{ lamports: string; tokens: Array<{ mint: string; amount: string }> }>(sim, `/balances/${address}`, undefined, 'GET');
  return { lamports: BigInt(r.lamports), tokens: Object.fromEntries(r.tokens.map((t) => [t.mint, BigInt(t.amount)])) };
}

/** Signs a base64 transaction from the venue with a keypair and returns it as base64. */
export function signBase64(transaction: string, signer: Keypair): string {
  const tx = VersionedTransaction.deserialize(Buffer.from(transaction, 'base64'));
  tx.sign([signer]);
  return Buffer.from(tx.serialize()).toString('base64');
}

/** Opens a wallet's empty associated token account of a listed mint (the wallet signs and pays); returns its address. */
export function openTokenAccount(sim: RunningSimulator, owner: Keypair, mint: string): string {
  const venue = sim.ctx.state.venue;
  const token = venue.token(mint);
  if (!token) throw new Error(`unknown mint ${mint}`);
  const program = new PublicKey(tokenProgramId(token));
  const account = getAssociatedTokenAddressSync(new PublicKey(mint), owner.publicKey, true, program);
  const { tx } = venue.chain.buildTransaction(owner.publicKey, [createAssociatedTokenAccountIdempotentInstruction(owner.publicKey, account, owner.publicKey, new PublicKey(mint), program)]);
  tx.sign([owner]);
  const outcome = venue.settle(tx);
  if (outcome.kind !== 'landed') throw new Error(`opening the token account did not land: ${JSON.stringify(outcome)}`);
  return account.toBase58();
}
