// Product attacks of the hostile venue (issue 10): each rewrites a transaction the simulator built for a product
// (limit and recurring orders, lend, prediction, send) into one that still settles on the simulator (a ticket is
// registered for what changed, so the keeper still co-signs) but moves the wallet's funds or rights somewhere the
// intent never asked for, or carries other terms than the intent's in the product's own instruction. The terms are
// rewritten with the same program layouts the venue writes and the guard reads (src/jupiter/programs).
import { PublicKey, TransactionMessage, VersionedTransaction, type Keypair, type TransactionInstruction } from '@solana/web3.js';
import { decodeLendInstruction, DEPOSIT_ACCOUNTS, LEND_PROGRAM, WITHDRAW_ACCOUNTS } from '../../src/jupiter/programs/lend.js';
import type { RawInstruction } from '../../src/jupiter/programs/instruction.js';
import { CREATE_ORDER_ACCOUNTS, createOrderData, decodePredictionInstruction, PREDICTION_PROGRAM } from '../../src/jupiter/programs/prediction.js';
import { decodeRecurringInstruction, OPEN_DCA_V2_ACCOUNTS, openDcaV2Data, RECURRING_PROGRAM } from '../../src/jupiter/programs/recurring.js';
import { decodeSendInstruction, INITIALIZE_TOKEN_ACCOUNTS, initializeTokenData, SEND_PROGRAM } from '../../src/jupiter/programs/send.js';
import { decodeTriggerInstruction, INITIALIZE_ORDER_ACCOUNTS, initializeOrderData, TRIGGER_PROGRAM } from '../../src/jupiter/programs/trigger.js';
import { instructionHash } from '../../src/sim/chain/tickets.js';
import type { Venue } from '../../src/sim/venue.js';
import type { GuardRule } from '../../src/solana/guardTypes.js';
import { applyEscrowAttack, ESCROW_PRIMARY_RULE, escrowOf, isEscrowAttack, type EscrowAttack } from './hostileEscrowAttacks.js';
import { depositInto, strangerAccount, substitute, withAccount, withData, withTransferAmount } from './hostileInstructions.js';
import { compileWithLookupTable } from './hostileLookupTables.js';

/** The intent kinds whose transactions carry a product program's instruction. */
export type ProductKind =
  | 'trigger.create'
  | 'trigger.cancel'
  | 'recurring.create'
  | 'recurring.cancel'
  | 'lend.deposit'
  | 'lend.withdraw'
  | 'lend.mint'
  | 'lend.redeem'
  | 'prediction.buy'
  | 'prediction.sell'
  | 'prediction.closeOrder'
  | 'prediction.claim'
  | 'send'
  | 'send.clawback';

/** One way the venue lies in a product's transaction. */
export type ProductAttack =
  /** The deposit goes into the stranger's token account, which the product instruction names as its escrow. */
  | { kind: 'escrow-stranger' }
  /** The product's amount (and the deposit that goes with it) is `bps` (default 1,000) more than the intent's; a sell's contracts doubled. */
  | { kind: 'amount'; bps?: number }
  /** A limit order's taking amount halved: it sells at half the intent's price. */
  | { kind: 'taking-amount' }
  /** Another mint in the product instruction: the output (trigger, recurring), the asset (lend), the settlement (prediction), the mint (send). */
  | { kind: 'mint'; mint: string }
  /** A prediction buy on the other side. */
  | { kind: 'side' }
  /** A prediction buy in another market. */
  | { kind: 'market'; marketId: string }
  /** A prediction order's price bound set to `microUsd` (a buy's limit above the intent's, a sell's floor below it). */
  | { kind: 'price-limit'; microUsd: bigint }
  /** A refund, payout or withdrawal paid to the stranger's token account instead of the wallet's. */
  | { kind: 'payout-stranger' }
  /** A lend deposit's (or mint's) shares minted to the stranger's token account of the share token, which the instruction names. */
  | { kind: 'share-stranger' }
  /** The lies in the movements beside the product instruction, or in the accounts it names (hostileEscrowAttacks.ts). */
  | EscrowAttack;

/** A product attack that the guard must refuse (every one but re-serving the honest transaction). */
export type RefusedProductAttack = Exclude<ProductAttack, { kind: 'honest' }>;

/** The rule that names each product attack: the one a refusal must list (more may be listed). */
export const PRODUCT_PRIMARY_RULE: Record<RefusedProductAttack['kind'], GuardRule> = {
  ...ESCROW_PRIMARY_RULE,
  'escrow-stranger': 'product-escrow',
  amount: 'product-amount',
  'taking-amount': 'product-amount',
  mint: 'product-mint',
  side: 'product-side',
  market: 'product-market',
  'price-limit': 'product-price-limit',
  'payout-stranger': 'product-payout',
  'share-stranger': 'product-share-token',
};

/** The program whose instruction carries each product's terms. */
export const PRODUCT_PROGRAM: Record<ProductKind, string> = {
  'trigger.create': TRIGGER_PROGRAM.toBase58(),
  'trigger.cancel': TRIGGER_PROGRAM.toBase58(),
  'recurring.create': RECURRING_PROGRAM.toBase58(),
  'recurring.cancel': RECURRING_PROGRAM.toBase58(),
  'lend.deposit': LEND_PROGRAM.toBase58(),
  'lend.withdraw': LEND_PROGRAM.toBase58(),
  'lend.mint': LEND_PROGRAM.toBase58(),
  'lend.redeem': LEND_PROGRAM.toBase58(),
  'prediction.buy': PREDICTION_PROGRAM.toBase58(),
  'prediction.sell': PREDICTION_PROGRAM.toBase58(),
  'prediction.closeOrder': PREDICTION_PROGRAM.toBase58(),
  'prediction.claim': PREDICTION_PROGRAM.toBase58(),
  send: SEND_PROGRAM.toBase58(),
  'send.clawback': SEND_PROGRAM.toBase58(),
};

/** What a product rewrite needs. */
export interface ProductRewriteContext {
  venue: Venue;
  wallet: PublicKey;
  stranger: Keypair;
  /** Compile the rewrite as v0 with a lookup table this authority creates on the simulator's chain (hostileLookupTables.ts). */
  lookupTable?: { authority: Keypair } | undefined;
}

/** A rewritten product transaction. */
export interface ProductRewrite {
  tx: VersionedTransaction;
  /** What was changed, for the test's records. */
  description: string;
  /** The stranger's token account the attack pays into, when it moves funds or shares to the stranger. */
  strangerAccount?: string;
  /** The account the money goes into instead (an account created, an escrow of someone else's, the vault). */
  target?: string;
  /** The lookup table the transaction loads accounts from, when compiled with one. */
  table?: string;
}

/** Which product a venue request builds and for which wallet; undefined for any other request. */
export function productRequest(method: string, path: string, body: Record<string, unknown>): { product: ProductKind; wallet: string } | undefined {
  const s = (k: string): string => {
    const v = body[k];
    return typeof v === 'string' ? v : '';
  };
  if (method === 'POST' && path === '/trigger/v1/createOrder') return { product: 'trigger.create', wallet: s('maker') };
  if (method === 'POST' && path === '/trigger/v1/cancelOrder') return { product: 'trigger.cancel', wallet: s('maker') };
  if (method === 'POST' && path === '/recurring/v1/createOrder') return { product: 'recurring.create', wallet: s('user') };
  if (method === 'POST' && path === '/recurring/v1/cancelOrder') return { product: 'recurring.cancel', wallet: s('user') };
  if (method === 'POST' && path === '/lend/v1/earn/deposit') return { product: 'lend.deposit', wallet: s('signer') };
  if (method === 'POST' && path === '/lend/v1/earn/withdraw') return { product: 'lend.withdraw', wallet: s('signer') };
  if (method === 'POST' && path === '/lend/v1/earn/mint') return { product: 'lend.mint', wallet: s('signer') };
  if (method === 'POST' && path === '/lend/v1/earn/redeem') return { product: 'lend.redeem', wallet: s('signer') };
  if (method === 'POST' && path === '/prediction/v1/orders') return { product: body.isBuy === true ? 'prediction.buy' : 'prediction.sell', wallet: s('ownerPubkey') };
  if (method === 'DELETE' && path === '/prediction/v1/orders') return { product: 'prediction.closeOrder', wallet: s('ownerPubkey') };
  if (method === 'POST' && /^\/prediction\/v1\/positions\/[^/]+\/claim$/.test(path)) return { product: 'prediction.claim', wallet: s('ownerPubkey') };
  if (method === 'POST' && path === '/send/v1/craft-send') return { product: 'send', wallet: s('sender') };
  if (method === 'POST' && path === '/send/v1/craft-clawback') return { product: 'send.clawback', wallet: s('sender') };
  return undefined;
}

/** The response field that holds the transaction of a product's build. */
export function transactionField(product: ProductKind): 'transaction' | 'tx' {
  return product === 'send' || product === 'send.clawback' ? 'tx' : 'transaction';
}

/**
 * Rewrites a product transaction the simulator built (v0, no lookup tables) for an attack, with the same blockhash
 * and payer, unsigned (compiled with a new lookup table when the context asks for one), and registers a ticket for
 * the changed instructions wherever the original had one. Throws when the attack does not apply to the product.
 */
export function rewriteProductTransaction(original: VersionedTransaction, product: ProductKind, attack: ProductAttack, ctx: ProductRewriteContext): ProductRewrite {
  if (original.message.addressTableLookups.length > 0) throw new Error('the hostile venue rewrites only transactions without lookup tables');
  const decompiled = TransactionMessage.decompile(original.message);
  const before = decompiled.instructions;
  const instructions = [...before];
  const at = instructions.findIndex((ix) => ix.programId.toBase58() === PRODUCT_PROGRAM[product]);
  if (at < 0) throw new Error(`the ${product} transaction has no instruction of ${PRODUCT_PROGRAM[product]}`);
  const programIx = instructions[at]!;
  const raw: RawInstruction = { programId: programIx.programId.toBase58(), accounts: programIx.keys.map((k) => k.pubkey.toBase58()), data: programIx.data };
  let result: Omit<ProductRewrite, 'tx'> = { description: attack.kind };
  const { venue, stranger } = ctx;
  const unsupported = (): never => {
    throw new Error(`the ${attack.kind} attack does not apply to ${product}`);
  };

  switch (attack.kind) {
    case 'escrow-stranger': {
      const { escrow, mint } = escrowOf(product, raw);
      const theirs = strangerAccount(venue, stranger.publicKey, mint);
      substitute(instructions, escrow, theirs);
      result.strangerAccount = theirs.toBase58();
      result.description = `the deposit goes into ${theirs.toBase58()}, the stranger's account of ${mint}, named as the escrow in place of ${escrow}`;
      break;
    }
    case 'payout-stranger': {
      const mine = payoutOf(product, raw);
      const mint = venue.chain.tokenAccount(new PublicKey(mine))?.mint;
      if (!mint) throw new Error(`${mine} is not a token account of the wallet`);
      const theirs = strangerAccount(venue, stranger.publicKey, mint);
      substitute(instructions, mine, theirs);
      result.strangerAccount = theirs.toBase58();
      result.description = `the ${product} pays ${theirs.toBase58()}, the stranger's account of ${mint}, instead of the wallet's ${mine}`;
      break;
    }
    case 'share-stranger': {
      const d = product === 'lend.deposit' || product === 'lend.mint' ? decodeLendInstruction(raw) : unsupported();
      if (d?.name !== 'deposit' && d?.name !== 'mint') throw new Error('no lend deposit or mint instruction');
      const shareMint = d.accounts.fTokenMint;
      const theirs = strangerAccount(venue, stranger.publicKey, shareMint, d.accounts.tokenProgram);
      substitute(instructions, d.accounts.recipientTokenAccount, theirs);
      result.strangerAccount = theirs.toBase58();
      result.description = `the deposit's shares (${shareMint}) are minted to ${theirs.toBase58()}, the stranger's account`;
      break;
    }
    case 'amount':
      result.description = changeAmount(product, raw, instructions, at, attack.bps ?? 1_000);
      break;
    case 'taking-amount': {
      const d = product === 'trigger.create' ? decodeTriggerInstruction(raw) : unsupported();
      if (d?.name !== 'initializeOrder') throw new Error('no initialize_order instruction');
      const taking = d.params.takingAmount / 2n;
      instructions[at] = withData(programIx, initializeOrderData({ ...d.params, takingAmount: taking }));
      result.description = `the order takes ${taking} instead of ${d.params.takingAmount} of the output`;
      break;
    }
    case 'mint': {
      const index = mintIndex(product) ?? unsupported();
      const was = raw.accounts[index]!;
      instructions[at] = withAccount(programIx, index, new PublicKey(attack.mint));
      result.description = `the ${product} instruction names ${attack.mint} in place of ${was}`;
      break;
    }
    case 'side':
    case 'market':
    case 'price-limit': {
      const d = product === 'prediction.buy' || product === 'prediction.sell' ? decodePredictionInstruction(raw) : unsupported();
      if (d?.name !== 'createOrder') throw new Error('no create_order instruction');
      const args = { ...d.args };
      if (attack.kind === 'side') args.isYes = !args.isYes;
      if (attack.kind === 'market') args.marketId = attack.marketId;
      if (attack.kind === 'price-limit') args.maxFillPriceUsd = attack.microUsd;
      instructions[at] = withData(programIx, createOrderData(args));
      result.description = attack.kind === 'side' ? `the order buys ${args.isYes ? 'YES' : 'NO'}` : attack.kind === 'market' ? `the order is in market ${args.marketId}` : `the order's price bound is ${args.maxFillPriceUsd} micro-USD`;
      break;
    }
    default:
      if (!isEscrowAttack(attack)) unsupported();
      result = applyEscrowAttack(attack, instructions, { product, program: programIx.programId, raw, at, venue, wallet: ctx.wallet, stranger });
  }

  retargetTicket(venue, original, before, instructions);
  const parts = { payerKey: decompiled.payerKey, recentBlockhash: decompiled.recentBlockhash, instructions };
  if (!ctx.lookupTable) return { tx: new VersionedTransaction(new TransactionMessage(parts).compileToV0Message()), ...result };
  const { message, table } = compileWithLookupTable(venue, ctx.lookupTable.authority, parts);
  return { tx: new VersionedTransaction(message), ...result, description: `${result.description} (accounts from lookup table ${table.toBase58()})`, table: table.toBase58() };
}

/** The wallet's token account a product's instruction pays into (a refund, payout, withdrawal). */
function payoutOf(product: ProductKind, raw: RawInstruction): string {
  switch (product) {
    case 'trigger.cancel': {
      const d = decodeTriggerInstruction(raw);
      if (d?.name === 'cancelOrder' && d.accounts.makerInputAccount !== TRIGGER_PROGRAM.toBase58()) return d.accounts.makerInputAccount;
      break;
    }
    case 'recurring.cancel': {
      const d = decodeRecurringInstruction(raw);
      if (d?.name === 'closeDca') return d.accounts.userInAta;
      break;
    }
    case 'lend.withdraw':
    case 'lend.redeem': {
      const d = decodeLendInstruction(raw);
      if (d?.name === 'withdraw' || d?.name === 'redeem') return d.accounts.recipientTokenAccount;
      break;
    }
    case 'prediction.closeOrder':
    case 'prediction.claim': {
      const d = decodePredictionInstruction(raw);
      if (d?.name === 'cancelOrder' || d?.name === 'claimPayout') return d.accounts.ownerTokenAccount;
      break;
    }
    case 'send.clawback': {
      const d = decodeSendInstruction(raw);
      if (d?.name === 'clawbackToken') return d.accounts.senderTokenAccount;
      break;
    }
    default:
  }
  throw new Error(`${product} pays out nothing to a token account of the wallet (or its instruction is not the expected one)`);
}

/** Index of the mint account the `mint` attack replaces in a product's instruction. */
function mintIndex(product: ProductKind): number | undefined {
  switch (product) {
    case 'trigger.create':
      return INITIALIZE_ORDER_ACCOUNTS.indexOf('outputMint');
    case 'recurring.create':
      return OPEN_DCA_V2_ACCOUNTS.indexOf('outputMint');
    case 'lend.deposit':
    case 'lend.mint':
      return DEPOSIT_ACCOUNTS.indexOf('mint');
    case 'lend.withdraw':
    case 'lend.redeem':
      return WITHDRAW_ACCOUNTS.indexOf('mint');
    case 'prediction.buy':
      return CREATE_ORDER_ACCOUNTS.indexOf('settlementMint');
    case 'send':
      return INITIALIZE_TOKEN_ACCOUNTS.indexOf('mint');
    default:
      return undefined;
  }
}

/**
 * Raises the product's amount by `bps` (a sell's contracts doubled), and the deposit that goes with it, so that the
 * transaction still does what its instruction says.
 */
function changeAmount(product: ProductKind, raw: RawInstruction, instructions: TransactionInstruction[], at: number, bps: number): string {
  const up = (n: bigint): bigint => n + (n * BigInt(bps)) / 10_000n;
  const ix = instructions[at]!;
  let was: bigint;
  let now: bigint;
  let escrow: string | undefined;
  switch (product) {
    case 'trigger.create': {
      const d = decodeTriggerInstruction(raw);
      if (d?.name !== 'initializeOrder') throw new Error('no initialize_order instruction');
      [was, now, escrow] = [d.params.makingAmount, up(d.params.makingAmount), d.accounts.reserve];
      instructions[at] = withData(ix, initializeOrderData({ ...d.params, makingAmount: now }));
      break;
    }
    case 'recurring.create': {
      const d = decodeRecurringInstruction(raw);
      if (d?.name !== 'openDcaV2') throw new Error('no openDcaV2 instruction');
      [was, now, escrow] = [d.args.inAmount, up(d.args.inAmount), d.accounts.inAta];
      instructions[at] = withData(ix, openDcaV2Data({ ...d.args, inAmount: now }));
      break;
    }
    case 'lend.deposit':
    case 'lend.withdraw':
    case 'lend.mint':
    case 'lend.redeem': {
      // A mint's or redemption's amount is its shares: the instruction's alone is raised (the asset moved is the venue's sum).
      const d = decodeLendInstruction(raw);
      if (d?.name === 'other' || d === undefined) throw new Error('no lend instruction');
      [was, now] = [d.amount, up(d.amount)];
      if (d.name === 'deposit') escrow = d.accounts.vault;
      const data = Buffer.from(ix.data);
      data.writeBigUInt64LE(now, 8);
      instructions[at] = withData(ix, data);
      break;
    }
    case 'prediction.buy':
    case 'prediction.sell': {
      const d = decodePredictionInstruction(raw);
      if (d?.name !== 'createOrder') throw new Error('no create_order instruction');
      const buy = d.args.isBuy;
      [was, now] = buy ? [d.args.depositAmount, up(d.args.depositAmount)] : [d.args.contracts, d.args.contracts * 2n];
      if (buy) escrow = d.accounts.orderAta;
      instructions[at] = withData(ix, createOrderData(buy ? { ...d.args, depositAmount: now } : { ...d.args, contracts: now }));
      break;
    }
    case 'send': {
      const d = decodeSendInstruction(raw);
      if (d?.name !== 'initializeToken') throw new Error('no initialize_token instruction');
      [was, now, escrow] = [d.amount, up(d.amount), d.accounts.escrow];
      instructions[at] = withData(ix, initializeTokenData(d.expirySeconds, now));
      break;
    }
    default:
      throw new Error(`the amount attack does not apply to ${product}`);
  }
  if (escrow !== undefined) {
    const deposit = instructions.findIndex((x) => depositInto(x, escrow));
    if (deposit < 0) throw new Error(`no deposit into ${escrow} in the transaction`);
    instructions[deposit] = withTransferAmount(instructions[deposit]!, now);
  }
  return `the ${product} amount is ${now} instead of ${was}${escrow !== undefined ? ', and the deposit with it' : ''}`;
}

/**
 * Registers a copy of the keeper's (or vault's) ticket of the original transaction for the rewritten one: the
 * instructions it kept and every changed one required, so that the co-signer would still sign what the wallet signs.
 * Nothing when the original or the rewrite needs no co-signer.
 */
function retargetTicket(venue: Venue, original: VersionedTransaction, before: TransactionInstruction[], after: TransactionInstruction[]): void {
  const ticket = venue.tickets.match(original, venue.clock.now());
  // A rewrite that no longer asks for the co-signer's signature (the payment it signed is gone) lands without it.
  if (!ticket || !after.some((ix) => ix.keys.some((k) => k.isSigner && k.pubkey.equals(ticket.cosigner.publicKey)))) return;
  const beforeHashes = new Set(before.map(instructionHash));
  const afterHashes = after.map(instructionHash);
  const kept = ticket.required.filter((h) => afterHashes.includes(h));
  const added = afterHashes.filter((h) => !beforeHashes.has(h));
  venue.tickets.add({ ...ticket, id: `${ticket.id}:hostile-product`, required: [...kept, ...added] });
}
