import bs58 from 'bs58';
import { ComputeBudgetProgram, PublicKey, type AccountInfo, type VersionedTransaction } from '@solana/web3.js';
import { AccountLayout, AccountState, ACCOUNT_SIZE, MintLayout, MINT_SIZE } from '@solana/spl-token';
import { U64_MAX } from '../../lib/amounts.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../catalog.js';
import { keyText, textOf } from './keys.js';

/** Rent-exempt reserve of a 165-byte token account: what a native account holds besides its wrapped SOL. */
export const NATIVE_ACCOUNT_RESERVE = 2_039_280n;

/** Base fee per signature, in lamports. */
export const LAMPORTS_PER_SIGNATURE = 5000n;

/** A mint to create. */
export interface MintOptions {
  decimals: number;
  program: string;
  supply: bigint;
  mintAuthority: PublicKey | null;
  freezeAuthority: PublicKey | null;
}

/** The bytes of an initialised SPL mint. */
export function mintData(o: MintOptions): Buffer {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: o.mintAuthority ? 1 : 0,
      mintAuthority: o.mintAuthority ?? PublicKey.default,
      supply: o.supply,
      decimals: o.decimals,
      isInitialized: true,
      freezeAuthorityOption: o.freezeAuthority ? 1 : 0,
      freezeAuthority: o.freezeAuthority ?? PublicKey.default,
    },
    data,
  );
  return data;
}

/** The bytes of an initialised SPL token account holding `amount`. */
export function tokenAccountData(o: { mint: PublicKey; owner: PublicKey; amount: bigint; delegate?: PublicKey | undefined; native?: boolean | undefined }): Buffer {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint: o.mint,
      owner: o.owner,
      amount: o.amount,
      delegateOption: o.delegate ? 1 : 0,
      delegate: o.delegate ?? PublicKey.default,
      state: AccountState.Initialized,
      // A native account's field holds its rent-exempt reserve (the lamports that are not wrapped SOL).
      isNativeOption: o.native ? 1 : 0,
      isNative: o.native ? NATIVE_ACCOUNT_RESERVE : 0n,
      delegatedAmount: o.delegate ? U64_MAX : 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  return data;
}

/** A token account's fields, or undefined when the account is not an SPL Token / Token-2022 account. */
export function decodeTokenAccount(acc: AccountInfo<Uint8Array>): { mint: string; owner: string; amount: bigint; frozen: boolean; program: string } | undefined {
  if (!isTokenProgram(acc.owner) || acc.data.length < ACCOUNT_SIZE) return undefined;
  // A Token-2022 mint with extensions is longer than an account; its account-type byte (1) tells them apart.
  if (acc.data.length > ACCOUNT_SIZE && acc.data[ACCOUNT_SIZE] === 1) return undefined;
  // The fields AccountLayout would decode, read in place: mint (0), owner (32), amount (u64 at 64), state (u8 at 108).
  const d = Buffer.from(acc.data.buffer, acc.data.byteOffset, acc.data.byteLength);
  return { mint: keyText(d.subarray(0, 32)), owner: keyText(d.subarray(32, 64)), amount: d.readBigUInt64LE(64), frozen: d[108] === AccountState.Frozen, program: textOf(acc.owner) };
}

/** The transaction id: its first signature in base58. */
export function firstSignature(tx: VersionedTransaction): string {
  const sig = tx.signatures[0];
  return sig ? bs58.encode(sig) : '';
}

/** Fee a transaction pays: 5,000 lamports per required signature plus its compute-unit price times its limit. */
export function feeOf(tx: VersionedTransaction): bigint {
  const msg = tx.message;
  let limit = 200_000n;
  let microLamports = 0n;
  const computeBudget = ComputeBudgetProgram.programId;
  for (const ix of msg.compiledInstructions) {
    const program = msg.staticAccountKeys[ix.programIdIndex];
    if (!program?.equals(computeBudget)) continue;
    const data = Buffer.from(ix.data);
    if (data[0] === 2 && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
    if (data[0] === 3 && data.length >= 9) microLamports = data.readBigUInt64LE(1);
  }
  return BigInt(msg.header.numRequiredSignatures) * LAMPORTS_PER_SIGNATURE + (limit * microLamports + 999_999n) / 1_000_000n;
}

const TOKEN_PROGRAM_KEY = new PublicKey(TOKEN_PROGRAM);
const TOKEN_2022_PROGRAM_KEY = new PublicKey(TOKEN_2022_PROGRAM);

/** Whether an account is owned by SPL Token or Token-2022. */
export function isTokenProgram(owner: PublicKey): boolean {
  return owner.equals(TOKEN_PROGRAM_KEY) || owner.equals(TOKEN_2022_PROGRAM_KEY);
}
