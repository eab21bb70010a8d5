import { PublicKey, SystemProgram, type Connection, type TransactionInstruction } from '@solana/web3.js';
import { createSyncNativeInstruction, createTransferCheckedInstruction } from '@solana/spl-token';
import { tokenProgramId } from '../catalog.js';
import { settledSignature, type ProductKeeper, type Venue } from '../venue.js';
import type { Reply } from './common.js';
import type { EscrowBook } from './escrow.js';
import { LEND_MARKETS, LendMarket } from './lendMarkets.js';
import { EXCHANGE_PRICE_PRECISION, LendProgramCodec, LEND_PROGRAM } from '../../jupiter/programs/lend.js';
import { chainConnection } from './lendConnection.js';
import { buildLendOp, instructionJson, lendBound, lendComputeBudget, type LendOp, type LendPlan } from './lendTx.js';

/** How often, at most, the keeper pays accrued interest into a vault on its own (sim ms); every Earn request does too. */
export const LEND_ACCRUAL_INTERVAL_MS = 60_000;

/** Body of the Earn POST endpoints, parsed: `amount` for deposit and withdraw, `shares` for mint and redeem. */
export interface LendRequest {
  asset: string;
  signer: string;
  /** Base units of the asset (deposit, withdraw) or of the jlToken (mint, redeem). */
  value: bigint;
}

/**
 * Jupiter Lend Earn on the simulator. Each listed asset has a market: a jlToken mint at the real address (the
 * keeper its mint authority) and a vault, the asset's associated token account of the liquidity layer's PDA (the
 * real vault address; an escrow in /__sim/escrows whose `wallet` is that PDA, since it pools every depositor).
 * A jlToken is worth vault / supply: interest is paid into the vault at the market's total rate (supply + rewards,
 * APR in bps) for the time since the last update, by the venue's treasury, at least once a simulated minute while
 * anyone holds jlTokens and before every Earn request and read, so the vault holds exactly what the listing says
 * its jlTokens are worth (`totalAssets`) whenever anyone looks. Rounding favours the vault, as the program's does.
 */
export class LendDesk implements ProductKeeper {
  readonly product = 'lend';
  readonly connection: Connection;
  private readonly codec: LendProgramCodec;
  private readonly markets: LendMarket[] = [];
  private readonly byAsset = new Map<string, LendMarket>();
  private readonly byJlMint = new Map<string, LendMarket>();
  /** When set, the Earn endpoints answer with the bounded variants, bounds this many bps beyond the settled amounts. */
  private bounded: { slippageBps: number } | null = null;

  constructor(
    private readonly venue: Venue,
    private readonly escrows: EscrowBook,
  ) {
    this.connection = chainConnection(venue);
    this.codec = new LendProgramCodec();
    const now = venue.clock.now();
    for (const config of LEND_MARKETS) {
      const token = venue.resolveToken(config.symbol);
      if (!token) continue;
      const market = new LendMarket(venue, token, config, now);
      this.open(market);
      this.markets.push(market);
      this.byAsset.set(token.mint, market);
      this.byJlMint.set(market.jlMint, market);
    }
  }

  /** Every market, in lending-id order. */
  list(): readonly LendMarket[] {
    return this.markets;
  }

  /** The market of an underlying asset. */
  market(asset: string): LendMarket | undefined {
    return this.byAsset.get(asset);
  }

  /** The market of a jlToken mint. */
  marketOfJlToken(jlMint: string): LendMarket | undefined {
    return this.byJlMint.get(jlMint);
  }

  /** Pays what every market owes its vault at the current time (before a read, so it sees the vault as listed). */
  accrueAll(): void {
    const now = this.venue.clock.now();
    for (const m of this.markets) this.accrue(m, now);
  }

  /** The keeper: pays interest into the vaults that have not been updated for a while. */
  tick(now: number): number {
    let done = 0;
    for (const m of this.markets) if (now - m.lastUpdateMs >= LEND_ACCRUAL_INTERVAL_MS && this.accrue(m, now)) done += 1;
    return done;
  }

  /**
   * Has /lend/v1/earn/{deposit,mint,withdraw,redeem} answer with the program's bounded variants
   * (depositWithMinAmountOut, mintWithMaxAssets, withdrawWithMaxSharesBurn, redeemWithMinAmountOut), their bound
   * `slippageBps` looser than the amounts settled at the current exchange price (0: exactly those); null goes back
   * to the plain instructions. Which ones the real API returns is not known: tests build both.
   */
  useBoundedVariants(o: { slippageBps: number } | null): void {
    if (o && (!Number.isInteger(o.slippageBps) || o.slippageBps < 0 || o.slippageBps > 10_000)) throw new RangeError(`slippageBps must be an integer from 0 to 10000, not ${o.slippageBps}`);
    this.bounded = o;
  }

  /** Changes a market's rates (bps a year) from now on; what was owed at the old rates is paid first. */
  setRates(market: LendMarket, rates: { supplyRateBps?: number | undefined; rewardsRateBps?: number | undefined }): void {
    this.accrue(market, this.venue.clock.now());
    if (rates.supplyRateBps !== undefined) market.supplyRateBps = rates.supplyRateBps;
    if (rates.rewardsRateBps !== undefined) market.rewardsRateBps = rates.rewardsRateBps;
  }

  /**
   * POST /lend/v1/earn/{deposit,withdraw,mint,redeem}[-instructions]: the unsigned transaction (or its instructions)
   * of one Earn operation at the current exchange price. Balances are the chain's to check: a withdrawal of more
   * than the wallet holds is built, and fails when simulated or sent, as the program would fail it.
   */
  async operation(op: LendOp, body: LendRequest, form: 'transaction' | 'instructions'): Promise<Reply> {
    const market = this.byAsset.get(body.asset);
    if (!market) return { status: 400, body: { error: `asset ${body.asset} has no Earn market; GET /lend/v1/earn/tokens lists them` } };
    const user = new PublicKey(body.signer);
    if (!PublicKey.isOnCurve(user.toBytes())) return { status: 400, body: { error: 'signer must be a wallet address (on the ed25519 curve)' } };
    const settled = this.plan(op, market, user, body.value);
    const plan = this.bounded ? { ...settled, bound: lendBound(settled, this.bounded.slippageBps) } : settled;
    if (plan.assets === 0n || plan.shares === 0n) {
      return { status: 400, body: { error: `${op === 'deposit' || op === 'withdraw' ? 'amount' : 'shares'} is too small: it is worth 0 ${op === 'deposit' || op === 'withdraw' ? 'shares' : 'base units of the asset'} at the current exchange price` } };
    }
    const built = await buildLendOp({ venue: this.venue, escrows: this.escrows, codec: this.codec, connection: this.connection }, plan, () => this.settled(plan));
    this.venue.tickets.add(built.ticket);
    if (form === 'instructions') return { status: 200, body: { instructions: built.instructions.map(instructionJson) } };
    const { tx } = this.venue.chain.buildTransaction(user, [...lendComputeBudget(), ...built.instructions]);
    return { status: 200, body: { transaction: Buffer.from(tx.serialize()).toString('base64') } };
  }

  /** The amounts of an operation at the vault's exchange price now (after paying what it is owed). */
  private plan(op: LendOp, market: LendMarket, user: PublicKey, value: bigint): LendPlan {
    this.accrue(market, this.venue.clock.now());
    const supply = market.supply();
    const vault = market.vaultBalance();
    // An empty market prices a jlToken at one base unit of the asset, as the program starts.
    const empty = supply === 0n || vault === 0n;
    switch (op) {
      case 'deposit':
        return { op, market, user, assets: value, shares: empty ? value : (value * supply) / vault };
      case 'mint':
        return { op, market, user, shares: value, assets: empty ? value : ceilDiv(value * vault, supply) };
      case 'withdraw':
        return { op, market, user, assets: value, shares: empty ? value : ceilDiv(value * supply, vault) };
      case 'redeem':
        return { op, market, user, shares: value, assets: empty ? 0n : (value * vault) / supply };
    }
  }

  /** Books an operation that landed (for the earnings endpoint). */
  private settled(plan: LendPlan): void {
    const book = plan.market.book(plan.user.toBase58());
    if (plan.op === 'deposit' || plan.op === 'mint') book.deposited += plan.assets;
    else book.withdrawn += plan.assets;
  }

  /**
   * Pays the interest a market owes its vault at `now` with a transaction of the venue's treasury (with the
   * program's update_rate, which is what moves the exchange price on chain), and records the new exchange price in
   * the `lending` account. Returns whether anything was paid.
   */
  private accrue(market: LendMarket, now: number): boolean {
    // One payment a slot at most: a second one in the same slot could be the very same transaction (same blockhash,
    // same amount), which the chain would drop as a duplicate.
    const slot = this.venue.clock.slot();
    if (slot === market.lastUpdateSlot) return false;
    const interest = market.pendingInterest(now);
    if (interest === 0n) {
      // Nothing accrues on an empty vault; a vault whose interest still rounds to 0 keeps accruing from its last update.
      if (market.supply() === 0n || market.vaultBalance() === 0n) market.lastUpdateMs = now;
      return false;
    }
    const treasury = this.venue.authority;
    const token = market.asset;
    const vault = market.addresses.vault;
    const fund: TransactionInstruction[] = this.venue.isSol(token.mint)
      ? [SystemProgram.transfer({ fromPubkey: treasury.publicKey, toPubkey: vault, lamports: interest }), createSyncNativeInstruction(vault)]
      : [createTransferCheckedInstruction(this.venue.ata(treasury.publicKey, token), new PublicKey(token.mint), vault, treasury.publicKey, interest, token.decimals, [], new PublicKey(tokenProgramId(token)))];
    const a = market.addresses;
    const update = this.codec.instruction('updateRate', { lending: a.lending, mint: a.asset, fTokenMint: a.fTokenMint, supplyTokenReservesLiquidity: a.tokenReserve, rewardsRateModel: a.rewardsRateModel });
    const { tx } = this.venue.chain.buildTransaction(treasury.publicKey, [...fund, update]);
    tx.sign([treasury]);
    settledSignature(this.venue.chain.submit(tx), `lend interest for ${market.symbol}`);
    market.lastUpdateMs = now;
    market.lastUpdateSlot = slot;
    const supply = market.supply();
    if (supply > 0n) market.exchangePrice = (market.vaultBalance() * EXCHANGE_PRICE_PRECISION) / supply;
    this.writeLending(market, now);
    return true;
  }

  /** Creates a market on chain: its jlToken mint, its vault (an escrow of the lend product) and its `lending` account. */
  private open(market: LendMarket): void {
    const chain = this.venue.chain;
    const program = tokenProgramId(market.asset);
    if (!chain.account(market.addresses.fTokenMint)) {
      chain.createMint(market.addresses.fTokenMint, { decimals: market.decimals, program, supply: 0n, mintAuthority: this.venue.keeper.publicKey, freezeAuthority: null });
    }
    const liquidity = market.addresses.liquidity;
    this.escrows.openEscrow('lend', liquidity, market.asset, liquidity);
    this.writeLending(market, this.venue.clock.now());
  }

  /** The market's `lending` account, as the Earn program lays it out (IDL type `lending`). */
  private writeLending(market: LendMarket, now: number): void {
    const a = market.addresses;
    const bump = this.codec.bump('initLending', 'lending', { mint: a.asset, fTokenMint: a.fTokenMint }, a.lending);
    const data = this.codec.account('lending', {
      mint: a.asset,
      fTokenMint: a.fTokenMint,
      lendingId: market.lendingId,
      decimals: market.decimals,
      rewardsRateModel: a.rewardsRateModel,
      liquidityExchangePrice: market.exchangePrice,
      tokenExchangePrice: market.exchangePrice,
      lastUpdateTimestamp: BigInt(Math.floor(now / 1000)),
      tokenReservesLiquidity: a.tokenReserve,
      supplyPositionOnLiquidity: a.supplyPosition,
      bump,
    });
    this.escrows.writeState(LEND_PROGRAM, a.lending, data);
  }
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
