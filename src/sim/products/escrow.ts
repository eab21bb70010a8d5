import { PublicKey, SystemProgram, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createSyncNativeInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync, NATIVE_MINT } from '@solana/spl-token';
import { tokenProgramId, type SimToken } from '../catalog.js';
import type { LedgerRecord } from '../chain/chain.js';
import { settledSignature, type Venue } from '../venue.js';

/** The products whose orders hold the user's funds in escrow. */
export type EscrowProduct = 'trigger' | 'recurring' | 'lend' | 'send' | 'prediction';

/** One escrow the venue keeps: a token account whose authority is an address of the product's program. */
export interface EscrowInfo {
  /** The escrow token account (base58). */
  address: string;
  product: EscrowProduct;
  /** Its authority: the order (or vault) account of the product's program. */
  authority: string;
  /** The user wallet whose funds it holds. */
  wallet: string;
  mint: string;
}

/**
 * Escrows of the simulated products, the way the real programs keep them: the user's funds go into a token account
 * whose authority is an address derived from the product's program id (the order's own account, created as the
 * program would). The simulator runs a no-op program at those ids (see noopProgram.ts), so the venue's keeper, made
 * the escrow's delegate when the venue opens it, carries out the program's later moves (fills, refunds, payouts)
 * with real transactions of its own, recorded on the ledger. Native SOL is escrowed as wrapped SOL.
 */
export class EscrowBook {
  private readonly open = new Map<string, EscrowInfo>();

  constructor(private readonly venue: Venue) {}

  /** The program-derived address of `seeds` under `program` (what the real program's `find_program_address` gives). */
  static pda(program: PublicKey, seeds: Array<Uint8Array | Buffer>): PublicKey {
    return PublicKey.findProgramAddressSync(seeds, program)[0];
  }

  /**
   * Writes a product's state account (an order, a vault) as its program would: owned by the program, holding
   * `data` (the program's layout, discriminator first), rent-exempt. The venue pays its rent.
   */
  writeState(program: PublicKey, address: PublicKey, data: Uint8Array): void {
    this.venue.chain.setAccount(address, { lamports: Number(this.venue.chain.rentExempt(data.length)), data, owner: program, executable: false });
  }

  /** Removes a product's state account (an order closed by its program). */
  closeState(address: PublicKey): void {
    this.venue.chain.setAccount(address, { lamports: 0, data: new Uint8Array(0), owner: SystemProgram.programId, executable: false });
  }

  /**
   * Opens (or returns) the escrow of `authority` for a token: its associated token account, the keeper its delegate,
   * wrapped SOL for native SOL. Registered for GET /__sim/escrows until it is empty and forgotten.
   */
  openEscrow(product: EscrowProduct, authority: PublicKey, token: SimToken, wallet: PublicKey): PublicKey {
    const mint = new PublicKey(token.mint);
    const program = new PublicKey(tokenProgramId(token));
    const address = getAssociatedTokenAddressSync(mint, authority, true, program);
    if (!this.venue.chain.account(address)) {
      this.venue.chain.createTokenAccount(address, { mint, owner: authority, amount: 0n, program: program.toBase58(), delegate: this.venue.keeper.publicKey, native: mint.equals(NATIVE_MINT) });
    }
    this.open.set(address.toBase58(), { address: address.toBase58(), product, authority: authority.toBase58(), wallet: wallet.toBase58(), mint: token.mint });
    return address;
  }

  /** Escrows still registered, with what they hold now. */
  list(): Array<EscrowInfo & { amount: bigint }> {
    return [...this.open.values()].map((e) => ({ ...e, amount: this.balance(new PublicKey(e.address)) }));
  }

  /** Forgets an escrow (its order ended and it is empty). */
  forget(address: PublicKey): void {
    this.open.delete(address.toBase58());
  }

  /** What an escrow holds, base units (wrapped SOL for native SOL). */
  balance(escrow: PublicKey): bigint {
    return this.venue.chain.tokenAccount(escrow)?.amount ?? 0n;
  }

  /** The user's deposit into an escrow: a transfer from the user's token account, or lamports wrapped in place. */
  depositInstructions(user: PublicKey, token: SimToken, escrow: PublicKey, amount: bigint): TransactionInstruction[] {
    if (this.venue.isSol(token.mint)) {
      return [SystemProgram.transfer({ fromPubkey: user, toPubkey: escrow, lamports: amount }), createSyncNativeInstruction(escrow)];
    }
    const program = new PublicKey(tokenProgramId(token));
    return [createTransferCheckedInstruction(this.venue.ata(user, token), new PublicKey(token.mint), escrow, user, amount, token.decimals, [], program)];
  }

  /**
   * A payment out of an escrow, signed by the keeper as its delegate: tokens to `to`'s associated token account
   * (created by the keeper when missing), or, for SOL, the wrapped SOL to the keeper's own wrapped-SOL account and
   * the same lamports from the keeper to `to`.
   */
  payoutInstructions(escrow: PublicKey, token: SimToken, to: PublicKey, amount: bigint): TransactionInstruction[] {
    const keeper = this.venue.keeper.publicKey;
    const program = new PublicKey(tokenProgramId(token));
    const mint = new PublicKey(token.mint);
    if (this.venue.isSol(token.mint)) {
      return [
        createTransferCheckedInstruction(escrow, mint, this.venue.keeperSolSink, keeper, amount, token.decimals, [], program),
        SystemProgram.transfer({ fromPubkey: keeper, toPubkey: to, lamports: amount }),
      ];
    }
    const destination = this.venue.ata(to, token);
    const out: TransactionInstruction[] = [];
    if (!this.venue.chain.account(destination)) out.push(createAssociatedTokenAccountIdempotentInstruction(keeper, destination, to, mint, program));
    out.push(createTransferCheckedInstruction(escrow, mint, destination, keeper, amount, token.decimals, [], program));
    return out;
  }

  /**
   * Submits a transaction of the keeper's (its fee payer; `cosigners` sign too, e.g. the vault paying a fill) and
   * records it on the ledger. Returns the signature; throws when it does not land.
   */
  submitKeeper(instructions: TransactionInstruction[], record: LedgerRecord, cosigners: Keypair[] = []): string {
    const keeper = this.venue.keeper;
    const { tx } = this.venue.chain.buildTransaction(keeper.publicKey, instructions);
    tx.sign([keeper, ...cosigners]);
    return settledSignature(this.venue.chain.submit(tx, { record }), `${record.kind} by the keeper`);
  }
}
