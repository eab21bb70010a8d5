import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { anchorDiscriminator } from '../programs/borsh.js';
import { hasDiscriminator, namedAccounts, ProgramLayoutError, type RawInstruction } from '../programs/instruction.js';

/**
 * JupiterZ's (Ultra's RFQ route) order engine program, 61DFfeTK… (`declare_id!` of programs/order-engine in
 * github.com/jup-ag/rfq-webhook-toolkit, "production" feature), and its one instruction:
 * `fill(input_amount: u64, output_amount: u64, expire_at: i64, fee_bps: u16)`. The program requires
 * `expire_at >= Clock::unix_timestamp`, so a filled quote cannot land after it: the chain's bound on how long the
 * market maker, who signs after the taker and is the fee payer, may hold the taker's signed transaction.
 *
 * The real RFQ transaction of DOCS `ultra/response.mdx` decodes to: 2 signatures (the maker first, as fee payer;
 * the taker second), ComputeBudget price and limit, then `fill` naming taker, maker, taker's input token account,
 * maker's input token account, the taker's output token account (the program id itself: Anchor's None, the taker
 * gets native SOL), the maker's output (wSOL) account, input mint, input token program, output mint, output token
 * program, system program, and the maker's temporary wSOL PDA as a remaining account. Its data is the 8-byte
 * discriminator, the three integers and 3 more bytes: the fee in bps (u16) and a flag byte whose lowest bit says
 * exact-out (DOCS `swap/routing/rfq-integration.mdx`, "Non-standard payload").
 */
export const ORDER_ENGINE_PROGRAM = new PublicKey(PROGRAM_IDS.jupiterOrderEngine);

/** sha256("global:fill")[0..8] = a860b7a35c0a28a0. */
export const FILL_DISCRIMINATOR = anchorDiscriminator('global', 'fill');

/** The accounts of `fill`, in its IDL's order (optional ones name the program id when absent). */
export const FILL_ACCOUNTS = [
  'taker',
  'maker',
  'takerInputMintTokenAccount',
  'makerInputMintTokenAccount',
  'takerOutputMintTokenAccount',
  'makerOutputMintTokenAccount',
  'inputMint',
  'inputTokenProgram',
  'outputMint',
  'outputTokenProgram',
  'systemProgram',
] as const;

/** The terms of a fill. Amounts in base units; `expireAt` unix seconds. */
export interface FillTerms {
  inputAmount: bigint;
  outputAmount: bigint;
  expireAt: bigint;
  /** Ultra's fee in bps, carried for off-chain readers. */
  feeBps: number;
  /** The flag byte's lowest bit: an exact-out quote. */
  exactOut: boolean;
}

/** A decoded fill: its terms and its named accounts (base58). */
export interface DecodedFill extends FillTerms {
  accounts: Record<(typeof FILL_ACCOUNTS)[number], string>;
}

const FIXED_DATA = 8 + 8 + 8 + 8;

/** The data of a fill as Ultra writes it: discriminator, the three integers, the fee (u16) and the flag byte. */
export function encodeFill(t: FillTerms): Buffer {
  const data = Buffer.alloc(FIXED_DATA + 3);
  FILL_DISCRIMINATOR.copy(data, 0);
  data.writeBigUInt64LE(t.inputAmount, 8);
  data.writeBigUInt64LE(t.outputAmount, 16);
  data.writeBigInt64LE(t.expireAt, 24);
  data.writeUInt16LE(t.feeBps, 32);
  data[34] = t.exactOut ? 1 : 0;
  return data;
}

/** Whether an instruction is the order engine's fill. */
export function isFill(ix: RawInstruction): boolean {
  return ix.programId === PROGRAM_IDS.jupiterOrderEngine && hasDiscriminator(ix.data, FILL_DISCRIMINATOR);
}

/**
 * Decodes a fill; throws ProgramLayoutError when the data or the accounts are too short. The fee and flag bytes are
 * read when present (the program itself ignores them).
 */
export function decodeFill(ix: RawInstruction): DecodedFill {
  if (!isFill(ix)) throw new ProgramLayoutError(ix.programId, 'fill', 'is not the order engine\'s fill');
  if (ix.data.length < FIXED_DATA) throw new ProgramLayoutError(ix.programId, 'fill', `carries ${ix.data.length} bytes of data; the layout needs ${FIXED_DATA}`);
  const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
  return {
    accounts: namedAccounts(ix, 'fill', FILL_ACCOUNTS),
    inputAmount: view.getBigUint64(8, true),
    outputAmount: view.getBigUint64(16, true),
    expireAt: view.getBigInt64(24, true),
    feeBps: ix.data.length >= FIXED_DATA + 2 ? view.getUint16(32, true) : 0,
    exactOut: ix.data.length >= FIXED_DATA + 3 ? (ix.data[34]! & 1) === 1 : false,
  };
}

/** The accounts a fill names (optional token accounts: null when the side is native SOL). */
export interface FillAccounts {
  taker: PublicKey;
  maker: PublicKey;
  takerInput: PublicKey | null;
  makerInput: PublicKey | null;
  takerOutput: PublicKey | null;
  makerOutput: PublicKey | null;
  inputMint: PublicKey;
  inputTokenProgram: PublicKey;
  outputMint: PublicKey;
  outputTokenProgram: PublicKey;
  systemProgram: PublicKey;
  /** Remaining accounts (the maker's temporary wSOL PDA when a side unwraps). */
  remaining?: readonly PublicKey[];
}

/** A fill instruction as Ultra builds it (both parties sign; absent optional accounts name the program id). */
export function fillInstruction(a: FillAccounts, t: FillTerms): TransactionInstruction {
  const optional = (k: PublicKey | null) => ({ pubkey: k ?? ORDER_ENGINE_PROGRAM, isSigner: false, isWritable: k !== null });
  const readonly = (k: PublicKey) => ({ pubkey: k, isSigner: false, isWritable: false });
  return new TransactionInstruction({
    programId: ORDER_ENGINE_PROGRAM,
    keys: [
      { pubkey: a.taker, isSigner: true, isWritable: true },
      { pubkey: a.maker, isSigner: true, isWritable: true },
      optional(a.takerInput),
      optional(a.makerInput),
      optional(a.takerOutput),
      optional(a.makerOutput),
      readonly(a.inputMint),
      readonly(a.inputTokenProgram),
      readonly(a.outputMint),
      readonly(a.outputTokenProgram),
      readonly(a.systemProgram),
      ...(a.remaining ?? []).map((k) => ({ pubkey: k, isSigner: false, isWritable: true })),
    ],
    data: encodeFill(t),
  });
}
