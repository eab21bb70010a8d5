import { PublicKey } from '@solana/web3.js';
import { getPermanentDelegate, getTransferHook, TOKEN_2022_PROGRAM_ID, unpackMint } from '@solana/spl-token';
import type { AccountSnapshot } from './guardChanges.js';
import { PROGRAM_IDS } from './programs.js';

/**
 * Token-2022 extensions that let someone other than the holder move or intercept the wallet's tokens: a permanent
 * delegate can transfer or burn from any account of the mint; a transfer hook runs a program of the mint's choosing
 * on every transfer. Returns what the mint has, empty for a plain mint (or one that is not Token-2022).
 */
export function dangerousExtensions(mint: string, account: AccountSnapshot | null | undefined): string[] {
  if (!account || account.owner !== PROGRAM_IDS.token2022) return [];
  let unpacked;
  try {
    unpacked = unpackMint(new PublicKey(mint), { data: Buffer.from(account.data), owner: TOKEN_2022_PROGRAM_ID, lamports: Number(account.lamports), executable: false }, TOKEN_2022_PROGRAM_ID);
  } catch {
    return ['an unreadable mint account'];
  }
  const found: string[] = [];
  const delegate = getPermanentDelegate(unpacked);
  if (delegate && !delegate.delegate.equals(PublicKey.default)) found.push(`a permanent delegate (${delegate.delegate.toBase58()})`);
  const hook = getTransferHook(unpacked);
  if (hook && !hook.programId.equals(PublicKey.default)) found.push(`a transfer hook (program ${hook.programId.toBase58()})`);
  return found;
}

export { mintDecimals } from './guardChanges.js';
