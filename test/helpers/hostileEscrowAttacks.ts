// Product attacks of the hostile venue that lie in the money movements beside an honest product instruction, or in
// the accounts it names (issue 20): an extra account created with the wallet's rent, a deposit into the stranger's
// own escrow of the same program, a new order on an account that already exists, a payout sent elsewhere or paid
// short, shares minted elsewhere or short, a second cancel, a claim against another market's result, an order's
// payer, token program or fee account changed. In the simulator the product programs are no-ops and the venue puts
// the movements beside their instruction (src/sim/products/*Tx.ts), which is what these rewrite.
// rewriteProductTransaction (hostileProducts.ts) dispatches them here and registers the ticket for what changed.
import { createHash, randomBytes } from 'node:crypto';
import { Keypair, PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import type { RawInstruction } from '../../src/jupiter/programs/instruction.js';
import { decodeLendInstruction } from '../../src/jupiter/programs/lend.js';
import { CLAIM_PAYOUT_ACCOUNTS, CREATE_ORDER_ACCOUNTS, decodePredictionInstruction, orderAtaAddress, PREDICTION_PROGRAM, vaultAddress } from '../../src/jupiter/programs/prediction.js';
import { encodeOrderAccount as encodePredictionOrder, orderAccountSpace } from '../../src/jupiter/programs/predictionAccounts.js';
import { DCA_ACCOUNT_SIZE, dcaAddress, decodeDcaAccount, decodeRecurringInstruction, encodeDcaAccount, openDcaV2Data, RECURRING_PROGRAM } from '../../src/jupiter/programs/recurring.js';
import { decodeSendInstruction, INVITE_INFO_TOKEN_SIZE, inviteInfoTokenData, invitePda, SEND_PROGRAM } from '../../src/jupiter/programs/send.js';
import { cancelOrderInstruction, decodeOrderAccount, decodeTriggerInstruction, encodeOrderAccount, FEE_ACCOUNT, INITIALIZE_ORDER_ACCOUNTS, initializeOrderData, ORDER_ACCOUNT_SIZE, orderAddress, TRIGGER_PROGRAM } from '../../src/jupiter/programs/trigger.js';
import { tokenProgramId, type SimToken } from '../../src/sim/catalog.js';
import { EscrowBook } from '../../src/sim/products/escrow.js';
import { marketResultAddress, orderAddress as predictionOrderAddress, positionAddress } from '../../src/sim/products/predictionSeeds.js';
import type { Venue } from '../../src/sim/venue.js';
import type { GuardRule } from '../../src/solana/guardTypes.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { amountOf, depositInto, isTokenIx, strangerAccount, substitute, TOKEN_IX, withAccount, withData, withTransferAmount } from './hostileInstructions.js';
import type { ProductKind } from './hostileProducts.js';

/** One way the venue lies in the movements beside a product instruction, or in the accounts it names. */
export type EscrowAttack =
  /** An extra account the wallet pays to create (createAccountWithSeed, based on the wallet), owned by the product's program, funded with exactly the rent of a state account's size. */
  | { kind: 'created-account' }
  /** The instruction honest; the deposit beside it goes into the stranger's own order (or invite) escrow of the same program. */
  | { kind: 'deposit-elsewhere' }
  /** A prediction buy naming the program's pooled vault as its order account, the vault's token account as its escrow. */
  | { kind: 'vault-as-order' }
  /**
   * A new order on an account that already exists: `order`, an open order of the wallet's own (trigger, recurring:
   * its unique id or index reused, the deposit topping up that order at its terms) or another prediction order (the
   * stranger's when omitted); a send's invite account written beforehand as the stranger's.
   */
  | { kind: 'existing-order'; order?: string }
  /** The instruction honest; the payout beside it goes to the stranger's account. */
  | { kind: 'payout-elsewhere' }
  /** The instruction honest; the payout beside it is half of it, the rest left in the escrow or vault. */
  | { kind: 'payout-half' }
  /** A lend deposit or mint, the instruction honest: the shares minted to the stranger's account of the jlToken. */
  | { kind: 'shares-elsewhere' }
  /** A lend deposit or mint, the instruction honest: half the shares minted to the wallet. */
  | { kind: 'shares-half' }
  /** A limit order's cancel with a second cancel_order: of `order` (another order of the wallet's), or of a stranger's order. */
  | { kind: 'second-cancel'; order?: string }
  /** A claim naming the result account of another market (`marketId`); the payout is left out. */
  | { kind: 'other-result'; marketId: string }
  /** A limit order whose payer (who pays and gets back its rent) is the stranger. */
  | { kind: 'order-payer' }
  /** A limit order naming the other token program as its input (or output) mint's, and nothing else changed. */
  | { kind: 'token-program'; side: 'input' | 'output' }
  /** A limit order whose fee account is the stranger's token account of the output mint. */
  | { kind: 'fee-account' }
  /** Nothing changed: the honest transaction served again (with a lookup table, say). */
  | { kind: 'honest' };

/** The rule that names each escrow attack: the one a refusal must list (more may be listed). */
export const ESCROW_PRIMARY_RULE: Record<Exclude<EscrowAttack['kind'], 'honest'>, GuardRule> = {
  'created-account': 'created-account',
  'deposit-elsewhere': 'destination',
  'vault-as-order': 'product-escrow',
  'existing-order': 'product-target',
  'payout-elsewhere': 'payout-destination',
  'payout-half': 'payout-short',
  'shares-elsewhere': 'payout-short',
  'shares-half': 'payout-short',
  'second-cancel': 'product-instruction',
  'other-result': 'product-market',
  'order-payer': 'product-owner',
  'token-program': 'product-mint',
  'fee-account': 'product-fee',
};

const ESCROW_KINDS = new Set<string>([...Object.keys(ESCROW_PRIMARY_RULE), 'honest']);

/** Whether an attack is one of this file's. */
export function isEscrowAttack(attack: { kind: string }): attack is EscrowAttack {
  return ESCROW_KINDS.has(attack.kind);
}

/** What an escrow attack needs: the product, its instruction (decoded from `raw`, at `at`), the venue and the parties. */
export interface EscrowAttackContext {
  product: ProductKind;
  program: PublicKey;
  raw: RawInstruction;
  at: number;
  venue: Venue;
  wallet: PublicKey;
  stranger: Keypair;
}

/** What an escrow attack changed, for the test's records. */
export interface EscrowAttackResult {
  description: string;
  /** The stranger's token account it pays into. */
  strangerAccount?: string;
  /** The account the money goes into instead (an account created, an escrow of someone else's, the vault). */
  target?: string;
}

/** Rewrites `instructions` (the product instruction at `c.at`) for an escrow attack; throws when it does not apply. */
export function applyEscrowAttack(attack: EscrowAttack, instructions: TransactionInstruction[], c: EscrowAttackContext): EscrowAttackResult {
  const unsupported = (): never => {
    throw new Error(`the ${attack.kind} attack does not apply to ${c.product}`);
  };
  switch (attack.kind) {
    case 'honest':
      return { description: 'the honest transaction' };
    case 'created-account':
      return createdAccount(instructions, c);
    case 'deposit-elsewhere': {
      const { escrow, mint } = escrowOf(c.product, c.raw);
      const theirs = strangerEscrow(c, mint);
      substitute(instructions, escrow, theirs.escrow, c.program);
      if (!instructions.some((ix) => depositInto(ix, theirs.escrow.toBase58()))) throw new Error(`no deposit into ${escrow} beside the ${c.product} instruction`);
      return { target: theirs.escrow.toBase58(), description: `the instruction names ${escrow}; the deposit goes into ${theirs.escrow.toBase58()}, the escrow of the stranger's ${theirs.what} ${theirs.owner.toBase58()}` };
    }
    case 'vault-as-order': {
      const d = c.product === 'prediction.buy' ? decodePredictionInstruction(c.raw) : unsupported();
      if (d?.name !== 'createOrder') throw new Error('no create_order instruction');
      const mint = new PublicKey(d.accounts.settlementMint);
      const vault = vaultAddress(mint).address;
      const pool = orderAtaAddress(vault, mint);
      substitute(instructions, d.accounts.orderAta, pool);
      instructions[c.at] = withAccount(instructions[c.at]!, CREATE_ORDER_ACCOUNTS.indexOf('order'), vault);
      return { target: pool.toBase58(), description: `the order account is the pooled vault ${vault.toBase58()}, its escrow (and the deposit's destination) the vault's token account ${pool.toBase58()}` };
    }
    case 'existing-order':
      return existingOrder(attack.order, instructions, c) ?? unsupported();
    case 'payout-elsewhere':
    case 'payout-half':
      return payout(attack.kind === 'payout-half', instructions, c);
    case 'shares-elsewhere':
    case 'shares-half': {
      const d = c.product === 'lend.deposit' || c.product === 'lend.mint' ? decodeLendInstruction(c.raw) : unsupported();
      if (d?.name !== 'deposit' && d?.name !== 'mint') throw new Error('no lend deposit or mint instruction');
      const i = instructions.findIndex((ix) => isTokenIx(ix, TOKEN_IX.mintTo) && ix.keys[0]?.pubkey.toBase58() === d.accounts.fTokenMint);
      if (i < 0) throw new Error(`no mint of ${d.accounts.fTokenMint} beside the ${c.product} instruction`);
      const shares = amountOf(instructions[i]!);
      if (attack.kind === 'shares-half') {
        instructions[i] = withTransferAmount(instructions[i]!, shares / 2n);
        return { description: `the instruction names the wallet's share account; ${shares / 2n} shares are minted to it instead of ${shares}` };
      }
      const theirs = strangerAccount(c.venue, c.stranger.publicKey, d.accounts.fTokenMint, d.accounts.tokenProgram);
      instructions[i] = withAccount(instructions[i]!, 1, theirs);
      return { strangerAccount: theirs.toBase58(), description: `the instruction names the wallet's share account; the ${shares} shares are minted to ${theirs.toBase58()}, the stranger's` };
    }
    case 'second-cancel':
      return c.product === 'trigger.cancel' ? secondCancel(attack.order, instructions, c) : unsupported();
    case 'other-result': {
      const d = c.product === 'prediction.claim' ? decodePredictionInstruction(c.raw) : unsupported();
      if (d?.name !== 'claimPayout') throw new Error('no claim_payout instruction');
      const result = marketResultAddress(attack.marketId).address;
      instructions[c.at] = withAccount(instructions[c.at]!, CLAIM_PAYOUT_ACCOUNTS.indexOf('marketResult'), result);
      // The venue keeps the winnings: nothing leaves the vault's token account.
      const kept = instructions.filter((ix) => !(isTokenIx(ix, TOKEN_IX.transferChecked) && ix.keys[0]?.pubkey.toBase58() === d.accounts.vaultTokenAccount));
      instructions.splice(0, instructions.length, ...kept);
      return { description: `the claim names ${result.toBase58()}, the result of market ${attack.marketId}, and pays nothing` };
    }
    case 'order-payer':
    case 'token-program':
    case 'fee-account': {
      const d = c.product === 'trigger.create' ? decodeTriggerInstruction(c.raw) : unsupported();
      if (d?.name !== 'initializeOrder') throw new Error('no initialize_order instruction');
      const other = (program: string) => new PublicKey(program === PROGRAM_IDS.token2022 ? PROGRAM_IDS.splToken : PROGRAM_IDS.token2022);
      const [slot, key] =
        attack.kind === 'order-payer'
          ? (['payer', c.stranger.publicKey] as const)
          : attack.kind === 'fee-account'
            ? (['feeAccount', strangerAccount(c.venue, c.stranger.publicKey, d.accounts.outputMint)] as const)
            : attack.side === 'input'
              ? (['inputTokenProgram', other(d.accounts.inputTokenProgram)] as const)
              : (['outputTokenProgram', other(d.accounts.outputTokenProgram)] as const);
      instructions[c.at] = withAccount(instructions[c.at]!, INITIALIZE_ORDER_ACCOUNTS.indexOf(slot), key);
      return { ...(attack.kind === 'fee-account' ? { strangerAccount: key.toBase58() } : {}), description: `the order's ${slot} is ${key.toBase58()} instead of ${d.accounts[slot]}` };
    }
  }
}

/** Bytes of a state account of each product's program (an order, a DCA, an invite; a lend market's `lending` as it is on chain). */
function stateSize(c: EscrowAttackContext): bigint {
  if (c.product.startsWith('trigger')) return BigInt(ORDER_ACCOUNT_SIZE);
  if (c.product.startsWith('recurring')) return DCA_ACCOUNT_SIZE;
  if (c.product.startsWith('prediction')) return orderAccountSpace().min;
  if (c.product.startsWith('send')) return BigInt(INVITE_INFO_TOKEN_SIZE);
  const d = decodeLendInstruction(c.raw);
  const lending = d && d.name !== 'other' ? c.venue.chain.account(new PublicKey(d.accounts.lending)) : null;
  if (!lending) throw new Error('no lending account named by the lend instruction');
  return BigInt(lending.data.length);
}

/** The extra account: created from the wallet with a seed, owned by the product's program, at exactly the rent of its size. */
function createdAccount(instructions: TransactionInstruction[], c: EscrowAttackContext): EscrowAttackResult {
  const space = stateSize(c);
  const seed = `keeper-${randomBytes(6).toString('hex')}`;
  // PublicKey.createWithSeed, without its promise: sha256(base, seed, owner).
  const address = new PublicKey(createHash('sha256').update(Buffer.concat([c.wallet.toBuffer(), Buffer.from(seed), c.program.toBuffer()])).digest());
  const lamports = c.venue.chain.rentExempt(Number(space));
  instructions.splice(c.at, 0, SystemProgram.createAccountWithSeed({ fromPubkey: c.wallet, basePubkey: c.wallet, seed, newAccountPubkey: address, lamports: Number(lamports), space: Number(space), programId: c.program }));
  return { target: address.toBase58(), description: `the wallet pays ${lamports} lamports (the rent of ${space} bytes) to create ${address.toBase58()}, owned by ${c.program.toBase58()}, which the instruction does not name` };
}

/** A new order on an account that already exists (see EscrowAttack 'existing-order'); undefined for other products. */
function existingOrder(order: string | undefined, instructions: TransactionInstruction[], c: EscrowAttackContext): EscrowAttackResult | undefined {
  const need = (): string => {
    if (order === undefined) throw new Error(`the existing-order attack on ${c.product} names the wallet's open order to reuse`);
    return order;
  };
  switch (c.product) {
    case 'trigger.create': {
      const d = decodeTriggerInstruction(c.raw);
      if (d?.name !== 'initializeOrder') throw new Error('no initialize_order instruction');
      const key = new PublicKey(need());
      const held = decodeOrderAccount(c.venue.chain.account(key)?.data ?? new Uint8Array());
      if (!held) throw new Error(`${key.toBase58()} holds no trigger order`);
      substitute(instructions, d.accounts.order, key);
      substitute(instructions, d.accounts.reserve, held.inputMintReserve);
      instructions[c.at] = withData(instructions[c.at]!, initializeOrderData({ ...d.params, uniqueId: held.uniqueId }));
      return { target: held.inputMintReserve.toBase58(), description: `the order reuses unique id ${held.uniqueId}: ${key.toBase58()}, the wallet's open order taking ${held.takingAmount} for ${held.makingAmount}, whose escrow gets the deposit` };
    }
    case 'recurring.create': {
      const d = decodeRecurringInstruction(c.raw);
      if (d?.name !== 'openDcaV2') throw new Error('no openDcaV2 instruction');
      const key = new PublicKey(need());
      const held = decodeDcaAccount(c.venue.chain.account(key)?.data ?? new Uint8Array());
      if (!held) throw new Error(`${key.toBase58()} holds no DCA order`);
      substitute(instructions, d.accounts.dca, key);
      substitute(instructions, d.accounts.inAta, held.inAccount);
      substitute(instructions, d.accounts.outAta, held.outAccount);
      instructions[c.at] = withData(instructions[c.at]!, openDcaV2Data({ ...d.args, applicationIdx: held.idx }));
      return { target: held.inAccount.toBase58(), description: `the order reuses index ${held.idx}: ${key.toBase58()}, the wallet's open order of ${held.inAmountPerCycle} a cycle, whose escrow gets the deposit` };
    }
    case 'prediction.buy': {
      const d = decodePredictionInstruction(c.raw);
      if (d?.name !== 'createOrder') throw new Error('no create_order instruction');
      const mint = new PublicKey(d.accounts.settlementMint);
      const key = order !== undefined ? new PublicKey(order) : strangerEscrow(c, mint.toBase58()).owner;
      const escrow = orderAtaAddress(key, mint);
      instructions[c.at] = withAccount(instructions[c.at]!, CREATE_ORDER_ACCOUNTS.indexOf('order'), key);
      substitute(instructions, d.accounts.orderAta, escrow);
      return { target: escrow.toBase58(), description: `the order account is ${key.toBase58()}, an order that exists already, whose escrow ${escrow.toBase58()} gets the deposit` };
    }
    case 'send': {
      const d = decodeSendInstruction(c.raw);
      if (d?.name !== 'initializeToken') throw new Error('no initialize_token instruction');
      // The simulator's venue can write any account; on chain only the program could have opened this invite before.
      const signer = new PublicKey(d.accounts.inviteSigner);
      const expirySeconds = BigInt(Math.floor(c.venue.clock.now() / 1000) + 86_400);
      new EscrowBook(c.venue).writeState(SEND_PROGRAM, new PublicKey(d.accounts.inviteInfo), inviteInfoTokenData({ sender: c.stranger.publicKey, inviteSigner: signer, escrow: new PublicKey(d.accounts.escrow), expirySeconds, bump: invitePda(signer).bump }));
      return { target: d.accounts.escrow, description: `the invite account ${d.accounts.inviteInfo} exists already as the stranger's invite: the escrow that gets the deposit is the stranger's to claw back` };
    }
    default:
      return undefined;
  }
}

/** The payout beside a withdrawal, claim, cancel or clawback: to the stranger, or half of it. */
function payout(half: boolean, instructions: TransactionInstruction[], c: EscrowAttackContext): EscrowAttackResult {
  const sources = payersOf(c.product, c.raw);
  const i = instructions.findIndex((ix) => isTokenIx(ix, TOKEN_IX.transferChecked) && sources.includes(ix.keys[0]!.pubkey.toBase58()) && c.venue.chain.tokenAccount(ix.keys[2]!.pubkey)?.owner === c.wallet.toBase58());
  if (i < 0) throw new Error(`no payout to the wallet's token account out of ${sources.join(', ')} beside the ${c.product} instruction`);
  const ix = instructions[i]!;
  const amount = amountOf(ix);
  const from = ix.keys[0]!.pubkey.toBase58();
  if (half) {
    instructions[i] = withTransferAmount(ix, amount / 2n);
    return { description: `the instruction names the wallet's account; ${amount / 2n} of the ${amount} in ${from} is paid to it, the rest stays` };
  }
  const theirs = strangerAccount(c.venue, c.stranger.publicKey, ix.keys[1]!.pubkey.toBase58());
  instructions[i] = withAccount(ix, 2, theirs);
  return { strangerAccount: theirs.toBase58(), description: `the instruction names the wallet's account; the ${amount} out of ${from} is paid to ${theirs.toBase58()}, the stranger's` };
}

/** The token accounts a product's payout comes out of, as its instruction names them. */
function payersOf(product: ProductKind, raw: RawInstruction): string[] {
  const t = decodeTriggerInstruction(raw);
  if (product === 'trigger.cancel' && t?.name === 'cancelOrder') return [t.accounts.reserve];
  const r = decodeRecurringInstruction(raw);
  if (product === 'recurring.cancel' && r?.name === 'closeDca') return [r.accounts.inAta, r.accounts.outAta];
  const l = decodeLendInstruction(raw);
  if ((product === 'lend.withdraw' || product === 'lend.redeem') && (l?.name === 'withdraw' || l?.name === 'redeem')) return [l.accounts.vault];
  const p = decodePredictionInstruction(raw);
  if (product === 'prediction.closeOrder' && p?.name === 'cancelOrder') return [p.accounts.orderAta];
  if (product === 'prediction.claim' && p?.name === 'claimPayout') return [p.accounts.vaultTokenAccount];
  const s = decodeSendInstruction(raw);
  if (product === 'send.clawback' && s?.name === 'clawbackToken') return [s.accounts.escrow];
  throw new Error(`${product} pays out of nothing (or its instruction is not the expected one)`);
}

/** A second cancel_order beside the intent's, with the refund of that order's escrow to its maker. */
function secondCancel(order: string | undefined, instructions: TransactionInstruction[], c: EscrowAttackContext): EscrowAttackResult {
  const d = decodeTriggerInstruction(c.raw);
  if (d?.name !== 'cancelOrder') throw new Error('no cancel_order instruction');
  const key = order !== undefined ? new PublicKey(order) : strangerEscrow(c, d.accounts.inputMint, 5_000_000n).owner;
  const held = decodeOrderAccount(c.venue.chain.account(key)?.data ?? new Uint8Array());
  const input = held && c.venue.token(held.inputMint.toBase58());
  if (!held || !input) throw new Error(`${key.toBase58()} holds no trigger order of a listed mint`);
  const maker = held.maker;
  if (maker.equals(c.stranger.publicKey)) strangerAccount(c.venue, maker, input.mint);
  const refund = c.venue.chain.tokenAccount(held.inputMintReserve)?.amount ?? 0n;
  const cancel = cancelOrderInstruction({ signer: maker, maker, order: key, reserve: held.inputMintReserve, makerInputAccount: c.venue.ata(maker, input), inputMint: held.inputMint, inputTokenProgram: new PublicKey(tokenProgramId(input)) });
  instructions.splice(c.at + 1, 0, cancel, ...new EscrowBook(c.venue).payoutInstructions(held.inputMintReserve, input, maker, refund));
  return { target: held.inputMintReserve.toBase58(), description: `a second cancel_order closes ${key.toBase58()} (maker ${maker.toBase58()}), refunding its ${refund}` };
}

/**
 * An order (or invite) of the stranger's with the same program, its escrow opened as the venue opens the wallet's
 * (the keeper its delegate) and, with `funded`, holding that much as the stranger's deposit.
 */
function strangerEscrow(c: EscrowAttackContext, mint: string, funded = 0n): { owner: PublicKey; escrow: PublicKey; what: string } {
  const token = c.venue.token(mint);
  if (!token) throw new Error(`the simulator lists no token ${mint}`);
  const book = new EscrowBook(c.venue);
  const stranger = c.stranger.publicKey;
  const now = BigInt(Math.floor(c.venue.clock.now() / 1000));
  const other = otherToken(c.venue, token);
  const uid = randomBytes(8).readBigUInt64LE();
  let opened: { owner: PublicKey; escrow: PublicKey; what: string };
  if (c.product.startsWith('trigger')) {
    const { address, bump } = orderAddress(stranger, uid);
    const escrow = book.openEscrow('trigger', address, token, stranger);
    book.writeState(TRIGGER_PROGRAM, address, encodeOrderAccount({
      maker: stranger, inputMint: new PublicKey(token.mint), outputMint: new PublicKey(other.mint), inputTokenProgram: new PublicKey(tokenProgramId(token)), outputTokenProgram: new PublicKey(tokenProgramId(other)),
      inputMintReserve: escrow, uniqueId: uid, oriMakingAmount: funded, oriTakingAmount: 1n, makingAmount: funded, takingAmount: 1n, borrowMakingAmount: 0n, expiredAt: null, feeBps: 0, feeAccount: FEE_ACCOUNT, createdAt: now, updatedAt: now, bump,
    }));
    opened = { owner: address, escrow, what: 'limit order' };
  } else if (c.product.startsWith('recurring')) {
    const r = decodeRecurringInstruction(c.raw);
    const outputMint = new PublicKey(r?.name === 'openDcaV2' ? r.accounts.outputMint : other.mint);
    const output = c.venue.token(outputMint.toBase58()) ?? other;
    const idx = uid >> 16n;
    const { address, bump } = dcaAddress(stranger, new PublicKey(token.mint), outputMint, idx);
    const escrow = book.openEscrow('recurring', address, token, stranger);
    const outAccount = book.openEscrow('recurring', address, output, stranger);
    book.writeState(RECURRING_PROGRAM, address, recurringAccount({ user: stranger, input: token, output, idx, escrow, outAccount, funded, now, bump }));
    opened = { owner: address, escrow, what: 'recurring order' };
  } else if (c.product.startsWith('send')) {
    const signer = Keypair.generate().publicKey;
    const { address, bump } = invitePda(signer);
    const escrow = book.openEscrow('send', address, token, stranger);
    book.writeState(SEND_PROGRAM, address, inviteInfoTokenData({ sender: stranger, inviteSigner: signer, escrow, expirySeconds: now + 86_400n, bump }));
    opened = { owner: address, escrow, what: 'invite' };
  } else if (c.product.startsWith('prediction')) {
    const externalOrderId = randomBytes(16).toString('hex');
    const { address, bump } = predictionOrderAddress(stranger, externalOrderId);
    const escrow = book.openEscrow('prediction', address, token, stranger);
    const p = decodePredictionInstruction(c.raw);
    const marketId = p?.name === 'createOrder' ? p.args.marketId : 'stranger-market';
    book.writeState(PREDICTION_PROGRAM, address, encodePredictionOrder({
      owner: stranger, position: positionAddress(stranger, marketId, true).address, status: 'pending', marketId, isYes: true, isBuy: true, createdAt: now, contracts: 1_000_000n, maxFillPriceUsd: 990_000n,
      filledAt: 0n, filledContracts: 0n, avgFillPriceUsd: 0n, orderId: null, externalOrderId, bump, orderType: 'market', payer: stranger, integrator: PublicKey.default, integratorFeeBps: 0, unitVersion: 1,
    }));
    opened = { owner: address, escrow, what: 'prediction order' };
  } else {
    throw new Error(`${c.product} has no escrow of a stranger's to deposit into`);
  }
  if (funded > 0n) c.venue.airdrop(opened.owner, token.mint, funded);
  return opened;
}

/** A listed token other than `token` for an order's other side (USDC, or SOL for USDC). */
function otherToken(venue: Venue, token: SimToken): SimToken {
  const other = venue.resolveToken(token.symbol === 'USDC' ? 'SOL' : 'USDC');
  if (!other) throw new Error('the simulator lists neither SOL nor USDC');
  return other;
}

/** A stranger's DCA account: the whole deposit still to buy, one cycle a day. */
function recurringAccount(o: { user: PublicKey; input: SimToken; output: SimToken; idx: bigint; escrow: PublicKey; outAccount: PublicKey; funded: bigint; now: bigint; bump: number }): Buffer {
  return encodeDcaAccount({
    user: o.user, inputMint: new PublicKey(o.input.mint), outputMint: new PublicKey(o.output.mint), idx: o.idx, nextCycleAt: o.now, inDeposited: o.funded, inWithdrawn: 0n, outWithdrawn: 0n, inUsed: 0n, outReceived: 0n,
    inAmountPerCycle: o.funded, cycleFrequency: 86_400n, nextCycleAmountLeft: o.funded, inAccount: o.escrow, outAccount: o.outAccount, minOutAmount: 0n, maxOutAmount: 0n, keeperInBalanceBeforeBorrow: 0n, dcaOutBalanceBeforeSwap: 0n, createdAt: o.now, bump: o.bump,
  });
}

/** The escrow a creating product's instruction names, and its mint. */
export function escrowOf(product: ProductKind, raw: RawInstruction): { escrow: string; mint: string } {
  switch (product) {
    case 'trigger.create': {
      const d = decodeTriggerInstruction(raw);
      if (d?.name === 'initializeOrder') return { escrow: d.accounts.reserve, mint: d.accounts.inputMint };
      break;
    }
    case 'recurring.create': {
      const d = decodeRecurringInstruction(raw);
      if (d?.name === 'openDcaV2') return { escrow: d.accounts.inAta, mint: d.accounts.inputMint };
      break;
    }
    case 'lend.deposit':
    case 'lend.mint': {
      const d = decodeLendInstruction(raw);
      if (d?.name === 'deposit' || d?.name === 'mint') return { escrow: d.accounts.vault, mint: d.accounts.mint };
      break;
    }
    case 'prediction.buy': {
      const d = decodePredictionInstruction(raw);
      if (d?.name === 'createOrder') return { escrow: d.accounts.orderAta, mint: d.accounts.settlementMint };
      break;
    }
    case 'send': {
      const d = decodeSendInstruction(raw);
      if (d?.name === 'initializeToken') return { escrow: d.accounts.escrow, mint: d.accounts.mint };
      break;
    }
    default:
  }
  throw new Error(`${product} escrows nothing (or its instruction is not the expected one)`);
}
