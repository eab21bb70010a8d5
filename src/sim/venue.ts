import { Keypair, PublicKey, SystemProgram, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { WSOL_MINT } from '../lib/mints.js';
import { SimClock } from './clock.js';
import { buildCatalog, tokenProgramId, type SimToken } from './catalog.js';
import { SimChain, firstSignature as txId, type SimulationResult, type SubmitOutcome } from './chain/chain.js';
import { innerInstructionsBefore, NO_LOADED_ADDRESSES } from './chain/meta.js';
import { TicketBook, type Ticket } from './chain/tickets.js';
import { PriceBook } from './market/prices.js';
import { Router } from './market/quote.js';
import { seedBytes } from './rng.js';

/** USD value of each token the market-maker vault starts with. */
const VAULT_INVENTORY_USD = 250_000_000;
/** SOL the vault starts with, in lamports. */
const VAULT_LAMPORTS = 5_000_000n * 1_000_000_000n;
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
  readonly tickets = new TicketBook();
  /** The market maker that takes the other side of every swap. */
  readonly vault: Keypair;
  /** Mint and treasury authority. */
  readonly authority: Keypair;
  private readonly byMint: Map<string, SimToken>;
  private readonly bySymbol: Map<string, SimToken>;
  private readonly atas = new Map<string, PublicKey>();

  constructor(options: VenueOptions = {}) {
    this.seed = options.seed ?? 1;
    this.clock = new SimClock({ speed: options.clockSpeed ?? 1, startMs: options.startMs });
    this.authority = Keypair.fromSeed(seedBytes('authority'));
    this.vault = Keypair.fromSeed(seedBytes('vault'));
    this.chain = new SimChain({ clock: this.clock, seed: this.seed, authority: this.authority });
    this.tokens = Object.freeze(buildCatalog());
    this.byMint = new Map(this.tokens.map((t) => [t.mint, t]));
    this.bySymbol = new Map(this.tokens.map((t) => [t.symbol.toUpperCase(), t]));
    this.prices = new PriceBook(this.tokens, this.seed, this.clock);
    this.router = new Router(this.tokens, this.prices);
    this.genesis();
  }

  /**
   * The keys the venue may add as co-signers of the transactions it hands out (Ultra and swap transactions carry a
   * vault payment that the vault signs at settlement). A client checking signers accepts these and no others.
   */
  coSigners(): PublicKey[] {
    return [this.vault.publicKey];
  }

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
    const key = `${owner.toBase58()}:${token.mint}`;
    let address = this.atas.get(key);
    if (!address) {
      address = getAssociatedTokenAddressSync(new PublicKey(token.mint), owner, true, new PublicKey(tokenProgramId(token)));
      if (this.atas.size >= 50_000) this.atas.delete(this.atas.keys().next().value!);
      this.atas.set(key, address);
    }
    return address;
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
   * submitted as it is, like any other transaction sent to an RPC node.
   */
  settle(tx: VersionedTransaction, ticket?: Ticket): SubmitOutcome {
    const now = this.clock.now();
    this.tickets.prune(now);
    const t = ticket ?? this.tickets.match(tx, now);
    if (!t) return this.chain.submit(tx);
    const known = this.chain.signatureStatus(txId(tx));
    if (known) return { kind: 'duplicate', signature: txId(tx), status: known };
    if (!this.chain.isBlockhashValid(tx.message.recentBlockhash)) return this.chain.submit(tx);
    // A transaction with a missing or bad user signature never lands; LiteSVM rejects it.
    if (!this.chain.signaturesValid(tx, [t.cosigner.publicKey])) return this.chain.submit(tx);
    const failure = t.preSettle?.();
    if (failure) {
      this.tickets.consume(t.id);
      return this.chain.landAsFailed(tx, failure.failInstruction, failure.code);
    }
    return this.chain.submit(tx, {
      cosigners: [t.cosigner],
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
  }
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
