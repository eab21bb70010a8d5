import { PublicKey } from '@solana/web3.js';
import { ACCOUNT_SIZE, ExtensionType, getAccountLen, getAccountTypeOfMintType, getExtensionTypes, getPermanentDelegate, getTransferHook, TOKEN_2022_PROGRAM_ID, unpackMint } from '@solana/spl-token';
import { mintDecimals, type AccountSnapshot } from './guardChanges.js';
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

/**
 * Size of an associated token account of a mint as the Associated Token Account program creates it, bytes: 165 under
 * SPL Token; under Token-2022 the account extensions the mint's own extensions require, plus ImmutableOwner (what
 * Token-2022's GetAccountDataSize answers the ATA program). Undefined when the account is not a mint.
 */
export function tokenAccountSpace(mint: string, account: AccountSnapshot | null | undefined): bigint | undefined {
  if (mintDecimals(account) === undefined) return undefined;
  if (account!.owner === PROGRAM_IDS.splToken) return BigInt(ACCOUNT_SIZE);
  try {
    const unpacked = unpackMint(new PublicKey(mint), { data: Buffer.from(account!.data), owner: TOKEN_2022_PROGRAM_ID, lamports: Number(account!.lamports), executable: false }, TOKEN_2022_PROGRAM_ID);
    const required = getExtensionTypes(unpacked.tlvData).map(getAccountTypeOfMintType).filter((t) => t !== ExtensionType.Uninitialized);
    return BigInt(getAccountLen([...new Set([...required, ExtensionType.ImmutableOwner])]));
  } catch {
    return undefined;
  }
}

export { mintDecimals } from './guardChanges.js';
