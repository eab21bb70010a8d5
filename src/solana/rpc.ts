import { Connection, type Commitment, type PublicKey, type SignatureStatus, type VersionedTransaction } from '@solana/web3.js';

/** A signature's status, as the engine needs it. */
export interface TxStatus {
  slot: number;
  err: unknown;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/**
 * The Solana JSON-RPC calls the engine makes, over web3.js's Connection (HTTP only: the engine polls, it never
 * subscribes, so no WebSocket is opened). Confirmation is by signature status, bounded by lastValidBlockHeight.
 */
export class SolanaRpc {
  readonly connection: Connection;
  private readonly commitment: Commitment;

  constructor(url: string, options: { commitment?: Commitment; fetch?: typeof fetch } = {}) {
    this.commitment = options.commitment ?? 'confirmed';
    this.connection = new Connection(url, { commitment: this.commitment, disableRetryOnRateLimit: true, fetch: options.fetch });
  }

  /** The current block height at the engine's commitment. */
  async blockHeight(): Promise<bigint> {
    return BigInt(await this.connection.getBlockHeight(this.commitment));
  }

  /** A signature's status, searching history (so "absent" means absent, not "out of the status cache"). */
  async status(signature: string): Promise<TxStatus | null> {
    const res = await this.connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
    const s: SignatureStatus | null | undefined = res.value[0];
    if (!s) return null;
    return { slot: s.slot, err: s.err, confirmationStatus: s.confirmationStatus ?? null };
  }

  /** Whether a blockhash can still land a transaction. */
  async isBlockhashValid(blockhash: string): Promise<boolean> {
    const res = await this.connection.isBlockhashValid(blockhash, { commitment: this.commitment });
    return res.value;
  }

  /** Sends signed bytes (preflight at the engine's commitment). Returns the signature. */
  async send(bytes: Uint8Array, options: { skipPreflight?: boolean } = {}): Promise<string> {
    return this.connection.sendRawTransaction(bytes, { skipPreflight: options.skipPreflight ?? false, preflightCommitment: this.commitment, maxRetries: 0 });
  }

  /** Lamports of an account (0 when missing). */
  async lamports(address: PublicKey): Promise<bigint> {
    return BigInt(await this.connection.getBalance(address, this.commitment));
  }

  /** Simulates a transaction without checking signatures, returning the post-state of the given accounts. */
  async simulate(tx: VersionedTransaction, accounts: readonly PublicKey[]) {
    return this.connection.simulateTransaction(tx, {
      sigVerify: false,
      replaceRecentBlockhash: false,
      commitment: this.commitment,
      accounts: { encoding: 'base64', addresses: accounts.map((a) => a.toBase58()) },
    });
  }
}
