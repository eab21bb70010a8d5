import { Keypair, PublicKey, SystemProgram, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { WSOL_MINT } from '../lib/mints.js';
import { PROGRAM_IDS } from '../lib/programIds.js';
import { noopProgramElf } from './chain/noopProgram.js';
import { SimClock } from './clock.js';
import { buildCatalog, tokenProgramId, type SimToken } from './catalog.js';
import { SimChain, firstSignature as txId, type SimulationResult, type SubmitOutcome } from './chain/chain.js';
import { innerInstructionsBefore, NO_LOADED_ADDRESSES } from './chain/meta.js';
import { TicketBook, type Ticket } from './chain/tickets.js';
import { PriceBook } from './market/prices.js';
import { Router } from './market/quote.js';
import { seedBytes } from './rng.js';
import { BoundedCache } from './boundedCache.js';

/** USD value of each token the market-maker vault starts with. */
const VAULT_INVENTORY_USD = 250_000_000;
/** SOL the vault starts with, in lamports. */
const VAULT_LAMPORTS = 5_000_000n * 1_000_000_000n;
/** SOL the keeper starts with (fees of its transactions, SOL payouts from native escrows), in lamports. */
const KEEPER_LAMPORTS = 1_000_000n * 1_000_000_000n;
/** The product programs the venue runs (as no-op programs: see noopProgram.ts). */
const PRODUCT_PROGRAMS = [PROGRAM_IDS.jupiterTrigger, PROGRAM_IDS.jupiterRecurring, PROGRAM_IDS.jupiterLendEarn, PROGRAM_IDS.jupiterSend, PROGRAM_IDS.jupiterPrediction];
const NOOP_PROGRAM = noopProgramElf();
/** Share of u64 range kept in each mint's treasury for airdrops. */
const TREASURY_AMOUNT = 1n << 60n;

/** Options of a simulated venue. */
export interface VenueOptions {
  /** Seed of every random stream: same seed, same prices. */
  seed?: number;
  /** Simulated time per real time (0 freezes the clock; advance it through the control API). */
  clockSpeed?: number;
  /** Simulated unix ms at start (defaults to now). */
  startMs?: number;
}

/**
 * The simulated venue's state: clock, chain, token catalog, prices, router, the market-maker vault and the
 * treasury that funds airdrops. Products (ultra, swap, trigger, ...) and the HTTP layer sit on top of it.
 */
export class Venue {
  readonly seed: number;
  readonly clock: SimClock;
  readonly chain: SimChain;
  readonly tokens: readonly SimToken[];
  readonly prices: PriceBook;
  readonly router: Router;
  /** Tickets read the lookup tables of the transactions they match from the chain, as the runtime loads them. */
  readonly tickets = new TicketBook((address) => this.chain.account(address));
  /** The market maker that takes the other side of every swap. */
  readonly vault: Keypair;
  /** Mint and treasury authority. */
  readonly authority: Keypair;
  /**
   * The venue's keeper: carries out what the product programs would do after an order is placed (fills, refunds,
   * payouts), as the delegate of their escrows, with transactions of its own. It co-signs some of the venue's
   * transactions (a cancel's refund), so it is a declared co-signer.
   */
  readonly keeper: Keypair;
  /** The keeper's wrapped-SOL account: SOL paid out of a native escrow passes through it. */
  readonly keeperSolSink: PublicKey;
  private readonly keepers: ProductKeeper[] = [];
  private readonly byMint: Map<string, SimToken>;
  private readonly bySymbol: Map<string, SimToken>;
  private readonly atas = new BoundedCache<string, PublicKey>(50_000);

  constructor(options: VenueOptions = {}) {
    this.seed = options.seed ?? 1;
    this.clock = new SimClock({ speed: options.clockSpeed ?? 1, startMs: options.startMs });
    this.authority = Keypair.fromSeed(seedBytes('authority'));
    this.vault = Keypair.fromSeed(seedBytes('vault'));
    this.keeper = Keypair.fromSeed(seedBytes('keeper'));
    this.keeperSolSink = getAssociatedTokenAddressSync(new PublicKey(WSOL_MINT), this.keeper.publicKey);
    this.chain = new SimChain({ clock: this.clock, seed: this.seed, authority: this.authority });
    this.tokens = Object.freeze(buildCatalog());
    this.byMint = new Map(this.tokens.map((t) => [t.mint, t]));
    // The first token listed with a symbol keeps it: copycats sharing it are listed after the real one.
    this.bySymbol = new Map([...this.tokens].reverse().map((t) => [t.symbol.toUpperCase(), t]));
    this.prices = new PriceBook(this.tokens, this.seed, this.clock);
    this.router = new Router(this.tokens, this.prices);
    this.genesis();
  }

  /**
   * The keys the venue may add as co-signers of the transactions it hands out (Ultra and swap transactions carry a
   * vault payment that the vault signs at settlement). A client checking signers accepts these and no others.
   */
  coSigners(): PublicKey[] {
    return [this.vault.publicKey, this.keeper.publicKey];
  }

  /** Adds a product's keeper: the venue runs it as its clock and prices move. */
  registerKeeper(keeper: ProductKeeper): void {
    this.keepers.push(keeper);
  }

  /**
   * Runs every product keeper once at the current simulated time (fills whose price was crossed, slices that are
   * due, expiries). Called on a short real-time interval and after every clock or price change of the control API.
   * One keeper failing does not stop the others; the error is kept for `lastKeeperError`.
   */
  runKeepers(): number {
    const now = this.clock.now();
    let done = 0;
    for (const k of this.keepers) {
      try {
        done += k.tick(now);
      } catch (err) {
        this.lastKeeperError = `${k.product}: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    return done;
  }

  /** Fills resting orders now whatever the price (one order, or every order), through each product's keeper. */
  fillNow(order?: string): number {
    return this.keepers.reduce((n, k) => n + (k.fillNow?.(order, this.clock.now()) ?? 0), 0);
  }

  /** Expires resting orders now (one order, or every order), returning their escrowed funds. */
  expireNow(order?: string): number {
    return this.keepers.reduce((n, k) => n + (k.expireNow?.(order, this.clock.now()) ?? 0), 0);
  }

  /** The last error a product keeper met, if any (a keeper that fails keeps its orders for the next run). */
  lastKeeperError: string | null = null;

  /** The token listed at a mint. */
  token(mint: string): SimToken | undefined {
    return this.byMint.get(mint);
  }

  /** A token by symbol (case-insensitive) or mint. */
  resolveToken(symbolOrMint: string): SimToken | undefined {
    return this.byMint.get(symbolOrMint) ?? this.bySymbol.get(symbolOrMint.toUpperCase());
  }

  /** Whether a mint is native SOL (wSOL): swaps pay and receive it as lamports. */
  isSol(mint: string): boolean {
    return mint === WSOL_MINT;
  }

  /** Associated token account of an owner for a listed mint (memoised: the PDA search is costly). */
  ata(owner: PublicKey, token: SimToken): PublicKey {
    return this.atas.getOr(`${owner.toBase58()}:${token.mint}`, () => getAssociatedTokenAddressSync(new PublicKey(token.mint), owner, true, new PublicKey(tokenProgramId(token))));
  }

  /** A wallet's balance of a mint, in base units (lamports for SOL). */
  balance(owner: PublicKey, mint: string): bigint {
    if (this.isSol(mint)) return this.chain.lamports(owner);
    const token = this.byMint.get(mint);
    if (!token) return 0n;
    return this.chain.tokenAccount(this.ata(owner, token))?.amount ?? 0n;
  }

  /**
   * Instructions that move `amount` of a token from `from` to `to` (lamports for SOL), creating the recipient's
   * associated token account when needed, paid by `rentPayer`.
   */
  transferInstructions(token: SimToken, from: PublicKey, to: PublicKey, amount: bigint, rentPayer: PublicKey): TransactionInstruction[] {
    if (this.isSol(token.mint)) return [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: amount })];
    const program = new PublicKey(tokenProgramId(token));
    const mint = new PublicKey(token.mint);
    const destination = this.ata(to, token);
    const out: TransactionInstruction[] = [];
    if (!this.chain.account(destination)) {
      out.push(createAssociatedTokenAccountIdempotentInstruction(rentPayer, destination, to, mint, program));
    }
    out.push(createTransferCheckedInstruction(this.ata(from, token), mint, destination, from, amount, token.decimals, [], program));
    return out;
  }

  /**
   * Funds a wallet with any listed token through a real transaction (SOL through the faucet, tokens from the
   * treasury) and records it in the ledger as an airdrop. Returns the signature.
   */
  airdrop(wallet: PublicKey, mint: string, amount: bigint): string {
    if (amount <= 0n) throw new RangeError('airdrop amount must be greater than 0');
    if (this.isSol(mint)) {
      const signature = this.chain.airdropLamports(wallet, amount);
      this.chain.recordLedger({ signature, kind: 'airdrop', wallet: wallet.toBase58(), requestId: null, slot: this.clock.slot(), inputMint: null, inputAmount: null, outputMint: mint, outputAmount: amount });
      return signature;
    }
    const token = this.byMint.get(mint);
    if (!token) throw new RangeError(`unknown mint ${mint}`);
    const ixs = this.transferInstructions(token, this.authority.publicKey, wallet, amount, this.authority.publicKey);
    const { tx } = this.chain.buildTransaction(this.authority.publicKey, ixs);
    tx.sign([this.authority]);
    const outcome = this.chain.submit(tx, {
      record: { kind: 'airdrop', wallet: wallet.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: mint, outputAmount: amount },
    });
    return settledSignature(outcome, 'airdrop');
  }

  /**
   * Settles a transaction signed by its user: finds the ticket that lets one of the venue's actors co-sign it
   * (or uses the one given), applies the ticket's last-moment market check (a stale price lands as failed with
   * Jupiter's program error 6001, fee charged), adds the co-signature and submits. A transaction with no ticket is
   * submitted as it is, like any other transaction sent to an RPC node. `message` is the transaction's message
   * serialized, when the caller has it.
   */
  settle(tx: VersionedTransaction, ticket?: Ticket, message?: Uint8Array): SubmitOutcome {
    const now = this.clock.now();
    this.tickets.prune(now);
    // A ticket handed in by a desk (which matched the bytes it built) is held to the same rule as one found here.
    const t = ticket ? (this.tickets.covers(ticket, tx) ? ticket : undefined) : this.tickets.match(tx, now);
    if (!t) return this.chain.submit(tx);
    const known = this.chain.signatureStatus(txId(tx));
    if (known) return { kind: 'duplicate', signature: txId(tx), status: known };
    if (!this.chain.isBlockhashValid(tx.message.recentBlockhash)) return this.chain.submit(tx);
    // A transaction with a missing or bad user signature never lands; LiteSVM rejects it.
    if (!this.chain.signaturesValid(tx, [t.cosigner.publicKey], message)) return this.chain.submit(tx);
    const failure = t.preSettle?.();
    if (failure) {
      this.tickets.consume(t.id);
      return this.chain.landAsFailed(tx, failure.failInstruction, failure.code);
    }
    return this.chain.submit(tx, {
      cosigners: [t.cosigner],
      message,
      record: t.record,
      onLanded: (signature, slot) => {
        this.tickets.consume(t.id);
        t.onLanded?.(signature, slot);
      },
    });
  }

  /**
   * What settle(tx) would do, without settling anything: the check an RPC node runs before it forwards a
   * transaction (preflight) and what simulateTransaction reports. A ticketed transaction is judged as settle would
   * judge it: the user's signatures, then the ticket's market check, then a simulation of the co-signed copy.
   * With `sigVerify` false, signatures are not checked (simulateTransaction of an unsigned transaction).
   */
  preflight(tx: VersionedTransaction, sigVerify = true): Preflight {
    const now = this.clock.now();
    this.tickets.prune(now);
    const ticket = this.tickets.match(tx, now);
    if (sigVerify && !this.chain.signaturesValid(tx, ticket ? [ticket.cosigner.publicKey] : [])) return { kind: 'bad-signature' };
    if (!this.chain.isBlockhashValid(tx.message.recentBlockhash)) {
      return simulated({ err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n, postAccounts: [], innerInstructions: null, loadedAddresses: NO_LOADED_ADDRESSES, returnData: null });
    }
    const failure = ticket?.preSettle?.();
    if (failure) {
      // The instructions before the refused one ran: their inner instructions are what a validator would record.
      const ran = this.chain.simulate(tx, false);
      const logs = [`Program log: AnchorError occurred. Error Code: SlippageToleranceExceeded. Error Number: ${failure.code}.`];
      return simulated({
        err: { InstructionError: [failure.failInstruction, { Custom: failure.code }] },
        logs,
        unitsConsumed: 0n,
        postAccounts: [],
        innerInstructions: innerInstructionsBefore(ran.innerInstructions ?? [], failure.failInstruction),
        loadedAddresses: ran.loadedAddresses,
        returnData: null,
      });
    }
    if (!ticket || !sigVerify) return simulated(this.chain.simulate(tx, sigVerify));
    const cosigned = VersionedTransaction.deserialize(tx.serialize());
    cosigned.sign([ticket.cosigner]);
    return simulated(this.chain.simulate(cosigned, true));
  }

  private genesis(): void {
    // The native mint exists on every cluster (wrapped SOL: 9 decimals, no authority); checked transfers and the
    // guard's decimals read it.
    this.chain.createMint(new PublicKey(WSOL_MINT), { decimals: 9, program: TOKEN_PROGRAM_ID.toBase58(), supply: 0n, mintAuthority: null, freezeAuthority: null });
    for (const token of this.tokens) {
      if (this.isSol(token.mint)) continue;
      const mint = new PublicKey(token.mint);
      const vaultAmount = BigInt(Math.floor((VAULT_INVENTORY_USD / token.usd) * 10 ** Math.min(token.decimals, 6))) * 10n ** BigInt(Math.max(0, token.decimals - 6));
      const program = tokenProgramId(token);
      // The simulator keeps the mint authority of every mint so that it can fund airdrops; the tokens API reports
      // the catalog's authority flags (what the real mint has), which is what the shield warnings are about.
      this.chain.createMint(mint, {
        decimals: token.decimals,
        program,
        supply: TREASURY_AMOUNT + vaultAmount,
        mintAuthority: this.authority.publicKey,
        freezeAuthority: token.freezeAuthority ? this.authority.publicKey : null,
      });
      this.chain.createTokenAccount(this.ata(this.authority.publicKey, token), { mint, owner: this.authority.publicKey, amount: TREASURY_AMOUNT, program });
      this.chain.createTokenAccount(this.ata(this.vault.publicKey, token), { mint, owner: this.vault.publicKey, amount: vaultAmount, program });
    }
    this.chain.airdropLamports(this.vault.publicKey, VAULT_LAMPORTS);
    this.chain.airdropLamports(this.keeper.publicKey, KEEPER_LAMPORTS);
    this.chain.createTokenAccount(this.keeperSolSink, { mint: new PublicKey(WSOL_MINT), owner: this.keeper.publicKey, amount: 0n, program: TOKEN_PROGRAM_ID.toBase58(), native: true });
    for (const program of PRODUCT_PROGRAMS) this.chain.addProgram(new PublicKey(program), NOOP_PROGRAM);
  }
}

/** What a product does on its own as time and prices move: the venue's keeper network for that product. */
export interface ProductKeeper {
  readonly product: string;
  /** Does what is due at `now` (sim ms); returns how many actions it took. */
  tick(now: number): number;
  /** Fills resting orders now whatever the price (one by id, or all); returns how many. */
  fillNow?(order: string | undefined, now: number): number;
  /** Expires resting orders now (one by id, or all), returning their escrows; returns how many. */
  expireNow?(order: string | undefined, now: number): number;
}

/** What a preflight finds: a signature that does not verify, or the simulation's result (err null: it would land). */
export type Preflight = { kind: 'bad-signature' } | { kind: 'simulated'; result: SimulationResult };

function simulated(result: SimulationResult): Preflight {
  return { kind: 'simulated', result };
}

/** The signature of a landed transaction, or an error naming what went wrong. */
export function settledSignature(outcome: SubmitOutcome, what: string): string {
  if (outcome.kind === 'landed') return outcome.signature;
  const reason = outcome.kind === 'duplicate' ? 'already processed' : JSON.stringify(outcome.err);
  throw new Error(`${what} transaction did not settle: ${reason}`);
}
