import { createAssociatedTokenAccountIdempotentInstruction } from '@solana/spl-token';
import { ComputeBudgetProgram, Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { tokenProgramId } from '../catalog.js';
import { seedBytes } from '../rng.js';
import type { Venue } from '../venue.js';
import type { EscrowBook } from './escrow.js';
import type { SimPosition, SimPredictionOrder } from './predictionBook.js';
import {
  cancelOrderInstruction,
  claimPayout2Instruction,
  claimPayoutInstruction,
  closeLostPositionInstruction,
  closeOrderInstruction,
  createOrderHashData,
  createOrderInstruction,
  fillBuyOrderInstruction,
  fillSellOrderInstruction,
  vaultAddress,
} from '../../jupiter/programs/prediction.js';
import { marketIdHash, marketResultAddress, vaultTokenAccountAddress } from './predictionSeeds.js';

/** Compute budget of a prediction transaction: units and a modest price (micro-lamports per unit). */
const COMPUTE_UNITS = 200_000;
const MICRO_LAMPORTS = 10_000n;
/** What the gas payer of gasless orders is given when gasless orders are first asked for, lamports (1,000 SOL). */
const GAS_PAYER_LAMPORTS = 1_000n * 1_000_000_000n;

/**
 * The transactions of the prediction product. The real program moves the money by CPI; the simulator's program at
 * its id does nothing, so each transaction carries the program's real instruction and, beside it, the token
 * transfers the program would make: the owner's deposit into the order's escrow (signed by the owner), and every
 * payment out of an escrow or the vault signed by the venue's keeper as their delegate. The keeper is the
 * program's `authority`, the market-maker vault its `secondary_authority` on fills.
 */
export class PredictionTx {
  /** The layout `create_order` is written in (see src/jupiter/programs/prediction.ts); the IDL's unless a test asks. */
  private orderLayout: 'idl-0.10.0' | 'market-hash' = 'idl-0.10.0';
  /** Jupiter's gas payer of gasless orders, the simulator's own key (748XjH… on mainnet): their fee and rent payer. */
  readonly gasPayer: Keypair = Keypair.fromSeed(seedBytes('prediction-gas-payer'));
  private gasless = false;

  constructor(
    private readonly venue: Venue,
    private readonly escrows: EscrowBook,
  ) {}

  /**
   * Writes `create_order` in the IDL v0.10.0 layout (the default) or the market-hash layout a live order was captured
   * in (the market named by the simulator's market id hash, predictionSeeds.ts; no slippage).
   */
  useOrderLayout(layout: 'idl-0.10.0' | 'market-hash'): void {
    this.orderLayout = layout;
  }

  /**
   * Builds the owner's orders (buys, sells, closes of a position) gasless, or not (the default), as the live API
   * builds them when it sponsors them (`isGasless`, SAC positions.json): the gas payer is the fee payer and
   * create_order's `payer`, opens the owner's settlement account when it is missing, and has signed the transaction
   * when it is returned, so its id (the fee payer's signature) is known before the owner signs. Cancels and claims
   * stay the owner's to pay (no gasless one has been seen).
   */
  useGasless(on: boolean): void {
    this.gasless = on;
    if (on && this.venue.chain.lamports(this.gasPayer.publicKey) === 0n) this.venue.chain.airdropLamports(this.gasPayer.publicKey, GAS_PAYER_LAMPORTS);
  }

  /** Who pays and signs first for an order built now: the gas payer when orders are gasless, else none (the owner). */
  orderFeePayer(): Keypair | undefined {
    return this.gasless ? this.gasPayer : undefined;
  }

  /** The compute-budget instructions every owner transaction starts with. */
  budget(): TransactionInstruction[] {
    return [ComputeBudgetProgram.setComputeUnitLimit({ units: COMPUTE_UNITS }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: MICRO_LAMPORTS })];
  }

  /**
   * The owner's order: the deposit into the escrow (buys), then `create_order` co-signed by the keeper. Gasless, the
   * gas payer is create_order's payer and first opens the owner's settlement account (idempotent), as live orders do.
   */
  create(o: SimPredictionOrder, contracts: bigint): TransactionInstruction[] {
    const p = o.position;
    const mint = new PublicKey(p.mint.mint);
    const payer = this.orderFeePayer()?.publicKey;
    const ownerTokenAccount = this.venue.ata(o.owner, p.mint);
    const opens = payer ? [createAssociatedTokenAccountIdempotentInstruction(payer, ownerTokenAccount, o.owner, mint, new PublicKey(tokenProgramId(p.mint)))] : [];
    const deposit = o.escrow ? this.escrows.depositInstructions(o.owner, p.mint, o.escrow, o.deposit) : [];
    const args = { externalOrderId: o.externalOrderId, isYes: p.isYes, isBuy: o.isBuy, contracts, maxFillPriceUsd: o.limit, depositAmount: o.deposit };
    const ix = createOrderInstruction(
      { payer: payer ?? o.owner, owner: o.owner, authority: this.venue.keeper.publicKey, position: p.key, order: o.key, ownerTokenAccount, settlementMint: mint },
      { ...args, marketId: p.market.marketId, orderType: 'market', integrator: null, integratorFeeBps: null },
    );
    const order = this.orderLayout === 'idl-0.10.0' ? ix : new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data: createOrderHashData({ ...args, marketIdHash: marketIdHash(p.market.marketId), slippageBps: 0, maxSlippageBps: null }) });
    return [...this.budget(), ...opens, ...deposit, order];
  }

  /**
   * A fill: the program's fill instruction, then the money. A buy pays the cost into the vault and the fee to the
   * venue out of the escrow, and the market maker adds the rest of a dollar per contract to the vault (it takes the
   * other side); `refund` (the last fill) returns what is left of the deposit. A sell pays the owner the net
   * proceeds out of the vault and returns the rest of each contract's dollar to the market maker.
   */
  fill(o: SimPredictionOrder, f: { contracts: bigint; usd: bigint; fee: bigint; refund: bigint }): TransactionInstruction[] {
    const v = this.venue;
    const p = o.position;
    const maker = v.vault.publicKey;
    const vault = vaultAddress(new PublicKey(p.mint.mint)).address;
    const vaultTokenAccount = vaultTokenAccountAddress(new PublicKey(p.mint.mint));
    const accounts = { authority: v.keeper.publicKey, secondaryAuthority: maker, owner: o.owner, vault, position: p.key, order: o.key, vaultTokenAccount, orderAta: o.escrow ?? vaultTokenAccount, integratorTokenAccount: null };
    const args = { filledContracts: f.contracts, usd: f.usd, venueFeeUsd: f.fee, orderId: o.orderId };
    const out: TransactionInstruction[] = [];
    if (o.isBuy) {
      out.push(fillBuyOrderInstruction(accounts, args));
      out.push(...this.pay(o.escrow!, p, vault, f.usd), ...this.pay(o.escrow!, p, maker, f.fee), ...this.fromMaker(p, vault, f.contracts - f.usd), ...this.pay(o.escrow!, p, o.owner, f.refund));
    } else {
      out.push(fillSellOrderInstruction(accounts, args));
      out.push(...this.pay(vaultTokenAccount, p, o.owner, f.usd - f.fee), ...this.pay(vaultTokenAccount, p, maker, f.contracts - (f.usd - f.fee)));
    }
    return out;
  }

  /** Closing an order: by its owner (`cancel_order`, the keeper co-signing the refund), or by the keeper (`close_order`). */
  close(o: SimPredictionOrder, byOwner: boolean): TransactionInstruction[] {
    const p = o.position;
    const accounts = { owner: o.owner, authority: this.venue.keeper.publicKey, order: o.key, rentDestination: byOwner ? o.owner : this.venue.keeper.publicKey, position: p.key, ownerTokenAccount: this.venue.ata(o.owner, p.mint), settlementMint: new PublicKey(p.mint.mint) };
    const refund = o.escrow ? this.pay(o.escrow, p, o.owner, o.remaining) : [];
    return [...(byOwner ? this.budget() : []), byOwner ? cancelOrderInstruction(accounts) : closeOrderInstruction(accounts), ...refund];
  }

  /** A claim: the owner's `claim_payout`, or the keeper's `claim_payout2` (the auto-claim); $1 a contract from the vault. */
  claim(p: SimPosition, byOwner: boolean): TransactionInstruction[] {
    const v = this.venue;
    const mint = new PublicKey(p.mint.mint);
    const ownerTokenAccount = v.ata(p.owner, p.mint);
    const accounts = { vault: vaultAddress(mint).address, position: p.key, marketResult: marketResultAddress(p.market.marketId).address, ownerTokenAccount, vaultTokenAccount: vaultTokenAccountAddress(mint) };
    const program = byOwner ? claimPayoutInstruction({ owner: p.owner, ...accounts }) : claimPayout2Instruction({ authority: v.keeper.publicKey, ...accounts });
    return [...(byOwner ? this.budget() : []), program, ...this.escrows.payoutInstructions(accounts.vaultTokenAccount, p.mint, p.owner, p.contracts)];
  }

  /** The keeper's close of a losing position: its dollars per contract go back to the market maker. */
  closeLost(p: SimPosition): TransactionInstruction[] {
    const mint = new PublicKey(p.mint.mint);
    const program = closeLostPositionInstruction({ authority: this.venue.keeper.publicKey, vault: vaultAddress(mint).address, position: p.key, marketResult: marketResultAddress(p.market.marketId).address });
    return [program, ...this.pay(vaultTokenAccountAddress(mint), p, this.venue.vault.publicKey, p.contracts)];
  }

  /** A payment out of an escrow or the vault by the keeper (nothing for 0). */
  private pay(from: PublicKey, p: SimPosition, to: PublicKey, amount: bigint): TransactionInstruction[] {
    return amount > 0n ? this.escrows.payoutInstructions(from, p.mint, to, amount) : [];
  }

  /** A payment by the market maker (nothing for 0). */
  private fromMaker(p: SimPosition, to: PublicKey, amount: bigint): TransactionInstruction[] {
    return amount > 0n ? this.venue.transferInstructions(p.mint, this.venue.vault.publicKey, to, amount, this.venue.keeper.publicKey) : [];
  }
}
