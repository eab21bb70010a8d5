// The tampered twins of each corpus transaction (corpusTamper.ts) and the rules the guard must refuse each with: a
// payout or deposit diverted to a stranger, an amount or a price worse than the intent's, a mint or side not the
// intent's, an instruction the intent never asked for. Which twins a transaction has follows from its product.
import { AccountLayout } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { decodeOrderAccount, encodeOrderAccount } from '../../src/jupiter/programs/trigger.js';
import { decodeRecurringInstruction, openDcaV2Data } from '../../src/jupiter/programs/recurring.js';
import { WSOL_MINT } from '../../src/lib/mints.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { accountKeysOf, type Recorded } from './corpus.js';
import { divertClose, divertLamports, divertMint, divertTransfer, extraTransfer, indexOf, innerOf, replaceAccount, rewriteData, scaleTransfer, STRANGER, STRANGER_MINT, STRANGER_TOKENS, swapMintOf, withAccount, withMint } from './corpusTamper.js';

/** One tampered twin: what the venue lied about, the twin, and the rules the guard refuses it with (sorted). */
export interface Twin {
  name: string;
  make(r: Recorded): Recorded;
  rules: string[];
}

/** The wallet's token accounts in a recording (held before or after, or initialised for it by the transaction), by mint. */
function walletAccounts(r: Recorded): Map<string, string> {
  const me = r.wallet.toBase58();
  const out = new Map<string, string>();
  for (const states of [r.pre, r.post]) {
    for (const [address, a] of states) {
      if (!a || a.data.length < AccountLayout.span || !a.owner.startsWith('Token')) continue;
      const t = AccountLayout.decode(a.data.subarray(0, AccountLayout.span));
      if (t.owner.toBase58() === me) out.set(address, t.mint.toBase58());
    }
  }
  for (const { ix } of innerOf(r)) {
    const info = ix.parsed?.info;
    if (ix.parsed?.type?.startsWith('initializeAccount') && info?.owner === me) out.set(info.account as string, info.mint as string);
  }
  return out;
}

const into = (accounts: Map<string, string>, mint: string) => (info: Record<string, unknown>) => accounts.get(info.destination as string) === mint;
const outOf = (accounts: Map<string, string>, mint: string) => (info: Record<string, unknown>) => accounts.get(info.source as string) === mint && !accounts.has(info.destination as string);
/**
 * An extra instruction paying a stranger 1,000 lamports. Where the wallet spends SOL anyway its net SOL spend exceeds
 * the intent's (sol-outflow); where it nets SOL in (a refund, a swap into SOL, less than any slippage bound of it)
 * the balance rules net the payment against the inflow and the flow rule alone names it (destination).
 */
function extra(r: Recorded): Twin {
  const i = r.intent;
  const netsSolIn = i.kind === 'trigger.cancel' || i.kind === 'recurring.cancel' || i.kind === 'send.clawback' || i.kind === 'lend.withdraw' || i.kind === 'lend.redeem' || i.kind.startsWith('prediction.c') || (i.kind === 'swap' && i.outputMint === WSOL_MINT);
  // A wallet that is not the fee payer is charged no fee, but in the corpus's gasless orders the rent the sponsor pays
  // for the wallet's new settlement account counts as SOL the wallet gains: the balance rule nets the payment against
  // it, the flow rule alone names it.
  const gasless = feePayerOf(r) !== r.wallet.toBase58();
  return { name: 'an extra instruction pays a stranger 1,000 lamports', make: (x) => extraTransfer(x, 1_000n), rules: netsSolIn || gasless ? ['destination'] : ['destination', 'sol-outflow'] };
}

function swapTwins(r: Recorded): Twin[] {
  const i = r.intent;
  if (i.kind !== 'swap') return [];
  const mine = walletAccounts(r);
  // SOL out may arrive as lamports (a JupiterZ maker pays the taker with a system transfer), not as wrapped SOL.
  const inLamports = i.outputMint === WSOL_MINT && !innerOf(r).some(({ ix }) => ix.programId !== PROGRAM_IDS.system && into(mine, i.outputMint)(ix.parsed?.info ?? {}));
  const me = r.wallet.toBase58();
  const twins: Twin[] = [
    { name: 'the output is paid to a stranger', make: (x) => (inLamports ? divertLamports(x, me) : divertTransfer(x, into(walletAccounts(x), i.outputMint), 'paying the wallet its output')), rules: ['inflow-short'] },
    { name: 'the output is 5 % short (a worse price)', make: (x) => (inLamports ? divertLamports(x, me, 5n, 100n) : scaleTransfer(x, into(walletAccounts(x), i.outputMint), 'paying the wallet its output', 95n, 100n)), rules: ['inflow-short'] },
    extra(r),
  ];
  const receiving = [...mine].find(([, mint]) => mint === i.outputMint)?.[0];
  if (i.outputMint !== WSOL_MINT && receiving) twins.push({ name: 'the output arrives in another mint', make: (x) => swapMintOf(x, receiving), rules: ['output-mint'] });
  if (i.inputMint !== WSOL_MINT) twins.push({ name: 'the route takes 1 % more input than the intent', make: (x) => scaleTransfer(x, outOf(walletAccounts(x), i.inputMint), 'taking the wallet\'s input', 101n, 100n), rules: ['token-outflow'] });
  return twins;
}

function triggerTwins(r: Recorded): Twin[] {
  const i = r.intent;
  const program = PROGRAM_IDS.jupiterTrigger;
  if (i.kind === 'trigger.create') {
    const ix = indexOf(r, program);
    const reserve = r.tx.message.compiledInstructions[ix]!.accountKeyIndexes[3]!;
    const reserveAddress = r.tx.message.staticAccountKeys[reserve]!.toBase58();
    return [
      { name: 'the deposit goes to a stranger, not the order\'s reserve', make: (x) => divertTransfer(x, (info) => info.destination === reserveAddress, 'into the reserve'), rules: ['destination', 'escrow-amount'] },
      { name: 'the taking amount is 1 % lower (a worse price)', make: (x) => rewriteData(x, ix, (d) => withU64(d, 24, (v) => (v * 99n) / 100n)), rules: ['product-amount'] },
      { name: 'the output mint is another', make: (x) => withMint(replaceAccount(x, ix, i.outputMint, STRANGER_MINT), STRANGER_MINT), rules: ['product-mint'] },
      extra(r),
    ];
  }
  if (i.kind === 'trigger.cancel') {
    const ix = indexOf(r, program);
    const [, , orderIndex, reserveIndex] = r.tx.message.compiledInstructions[ix]!.accountKeyIndexes;
    const reserve = r.tx.message.staticAccountKeys[reserveIndex!]!.toBase58();
    return [
      { name: 'the refund is paid to a stranger', make: (x) => divertClose(x, reserve), rules: ['payout-destination', 'payout-short'] },
      { name: 'the cancel names a stranger\'s order', make: (x) => strangersOrder(x, ix, r.tx.message.staticAccountKeys[orderIndex!]!.toBase58()), rules: ['product-escrow', 'product-owner', 'product-target'] },
      extra(r),
    ];
  }
  return [];
}

/** The instruction names another address where the order was, which holds a copy of the order made by a stranger. */
function strangersOrder(r: Recorded, ix: number, order: string): Recorded {
  const held = r.pre.get(order)!;
  const decoded = decodeOrderAccount(held.data)!;
  const other = new PublicKey(Buffer.alloc(32, 7)).toBase58();
  const data = encodeOrderAccount({ ...decoded, maker: new PublicKey(STRANGER) });
  return withAccount(replaceAccount(r, ix, order, other), other, { ...held, data });
}

function recurringTwins(r: Recorded): Twin[] {
  const i = r.intent;
  const program = PROGRAM_IDS.jupiterRecurring;
  const ix = indexOf(r, program);
  const keys = r.tx.message.compiledInstructions[ix]!.accountKeyIndexes.map((k) => r.tx.message.staticAccountKeys[k]!.toBase58());
  if (i.kind === 'recurring.create') {
    const inAta = keys[6]!;
    return [
      { name: 'the deposit goes to a stranger, not the order\'s input account', make: (x) => divertTransfer(x, (info) => info.destination === inAta, 'into the order\'s input account'), rules: ['destination', 'escrow-amount'] },
      { name: 'a price bound the intent does not set (a least output of 1 a cycle)', make: (x) => rewriteData(x, ix, (d) => withMinPrice(d, x, ix)), rules: ['product-price-limit'] },
      { name: 'the output mint is another', make: (x) => withMint(replaceAccount(x, ix, i.outputMint, STRANGER_MINT), STRANGER_MINT), rules: ['product-mint'] },
      extra(r),
    ];
  }
  if (i.kind === 'recurring.cancel') {
    const inAta = keys[4]!;
    return [
      { name: 'the unspent input is paid to a stranger', make: (x) => divertTransfer(x, (info) => info.source === inAta, 'out of the order\'s input account'), rules: ['payout-destination', 'payout-short'] },
      extra(r),
    ];
  }
  return [];
}

function lendTwins(r: Recorded): Twin[] {
  const i = r.intent;
  if (i.kind !== 'lend.deposit') return [];
  const ix = indexOf(r, PROGRAM_IDS.jupiterLendEarn);
  const keys = r.tx.message.compiledInstructions[ix]!.accountKeyIndexes.map((k) => r.tx.message.staticAccountKeys[k]!.toBase58());
  const [, , , , , , fTokenMint, , , , vault] = keys;
  return [
    { name: 'the shares are minted to a stranger', make: (x) => divertMint(x, fTokenMint!), rules: ['payout-destination', 'payout-short'] },
    { name: 'the deposit goes to a stranger, not the vault', make: (x) => divertTransfer(x, (info) => info.destination === vault, 'into the vault'), rules: ['destination', 'escrow-amount'] },
    { name: 'the instruction deposits 1 % more', make: (x) => scaleTransfer(rewriteData(x, ix, (d) => withU64(d, 8, (v) => (v * 101n) / 100n)), (info) => info.destination === vault, 'into the vault', 101n, 100n), rules: ['escrow-amount', 'product-amount', 'token-outflow'] },
    extra(r),
  ];
}

/**
 * A prediction order's twins. Offsets are of create_order's data with both strings 32 bytes (the API's hex ids):
 * is_yes at 80, is_buy at 81, contracts at 82, the price bound at 90. A gasless order has gaslessTwins besides.
 */
function predictionTwins(r: Recorded): Twin[] {
  const i = r.intent;
  const ix = indexOf(r, PROGRAM_IDS.jupiterPrediction);
  const keys = accountKeysOf(r.tx, r.tables);
  const account = (n: number) => keys[r.tx.message.compiledInstructions[ix]!.accountKeyIndexes[n]!]!;
  if (i.kind === 'prediction.buy') {
    const orderAta = account(8);
    return [
      { name: 'the order is on the other side', make: (x) => rewriteData(x, ix, (d) => Buffer.concat([d.subarray(0, 80), Buffer.from([d[80]! ^ 1]), d.subarray(81)])), rules: ['product-side'] },
      { name: 'the price limit is 1 % higher', make: (x) => rewriteData(x, ix, (d) => withU64(d, 90, (v) => (v * 101n) / 100n)), rules: ['product-price-limit'] },
      { name: 'the deposit goes to a stranger, not the order\'s escrow', make: (x) => divertTransfer(x, (info) => info.destination === orderAta, 'into the order\'s escrow'), rules: ['destination', 'escrow-amount'] },
      extra(r),
      ...gaslessTwins(r, ix, account(0)),
    ];
  }
  if (i.kind === 'prediction.sell' || i.kind === 'prediction.closePosition') {
    return [
      { name: 'the price floor is 1 % lower', make: (x) => rewriteData(x, ix, (d) => withU64(d, 90, (v) => (v * 99n) / 100n)), rules: ['product-price-limit'] },
      { name: 'the proceeds go to a stranger\'s account', make: (x) => replaceAccount(x, ix, account(6), STRANGER_TOKENS), rules: ['product-payout'] },
      extra(r),
      ...gaslessTwins(r, ix, account(0)),
    ];
  }
  return [extra(r)];
}

/**
 * A gasless order's own twins (its fee payer, Jupiter's gas payer, is create_order's payer `payer`): the rent payer
 * is a stranger instead, who then has to sign too (neither the wallet nor the fee payer may be replaced by anyone);
 * the wallet pays the gas payer, which pays the fee and the rent and is owed nothing. None for an order the wallet
 * pays for.
 */
function gaslessTwins(r: Recorded, ix: number, payer: string): Twin[] {
  const feePayer = feePayerOf(r);
  if (feePayer === r.wallet.toBase58() || payer !== feePayer) return [];
  return [
    { name: 'the order\'s rent payer is a stranger, not the wallet or the gas payer', make: (x) => replaceAccount(x, ix, payer, STRANGER), rules: ['product-owner', 'signer'] },
    { name: 'the wallet pays the gas payer 1,000 lamports', make: (x) => extraTransfer(x, 1_000n, feePayer), rules: ['destination'] },
  ];
}

/** The transaction's fee payer, base58. */
function feePayerOf(r: Recorded): string {
  return r.tx.message.staticAccountKeys[0]!.toBase58();
}

/** The twins of a recording, by its product. */
export function twinsOf(r: Recorded): Twin[] {
  switch (r.fixture.product) {
    case 'swap':
    case 'ultra':
      return swapTwins(r);
    case 'trigger':
      return triggerTwins(r);
    case 'recurring':
      return recurringTwins(r);
    case 'lend':
      return lendTwins(r);
    case 'prediction':
      return predictionTwins(r);
    default:
      return [extra(r)];
  }
}

function withU64(data: Buffer, offset: number, f: (v: bigint) => bigint): Buffer {
  const out = Buffer.from(data);
  out.writeBigUInt64LE(f(out.readBigUInt64LE(offset)), offset);
  return out;
}

/** openDcaV2's data with a least output of 1 base unit a cycle. */
function withMinPrice(data: Buffer, r: Recorded, ix: number): Buffer {
  const compiled = r.tx.message.compiledInstructions[ix]!;
  const decoded = decodeRecurringInstruction({ programId: PROGRAM_IDS.jupiterRecurring, accounts: compiled.accountKeyIndexes.map((k) => r.tx.message.staticAccountKeys[k]!.toBase58()), data });
  if (decoded?.name !== 'openDcaV2') throw new Error('not openDcaV2');
  return openDcaV2Data({ ...decoded.args, minPrice: 1n });
}
