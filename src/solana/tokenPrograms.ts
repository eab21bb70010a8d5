import { PublicKey } from '@solana/web3.js';
import { PROGRAM_IDS } from '../lib/programIds.js';

/*
 * The SPL token program ids and the associated-token-account address, without @solana/spl-token: that package is
 * ~150 ES modules (with its @solana/codecs dependencies), 0.2-0.3 s of CPU at the keeper's start-up through tsx,
 * and the product layouts (src/jupiter/programs) and the product checks need only these. What decodes token
 * instructions and Token-2022 mints (guardInstructions.ts, guardToken2022.ts) still uses the package; the guard
 * loads those on its first check. test/solana/tokenPrograms.test.ts checks every value against @solana/spl-token.
 */

/** The SPL Token program (spl-token's TOKEN_PROGRAM_ID). */
export const TOKEN_PROGRAM_ID = new PublicKey(PROGRAM_IDS.splToken);

/** The Associated Token Account program (spl-token's ASSOCIATED_TOKEN_PROGRAM_ID). */
export const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey(PROGRAM_IDS.associatedToken);

/**
 * The associated token account of `owner` for `mint` under `tokenProgram`: the Associated Token Account program's
 * address for the seeds [owner, token program, mint]. The owner may be off the curve (a program address): this is
 * spl-token's `getAssociatedTokenAddressSync(mint, owner, true, tokenProgram, associatedTokenProgram)`.
 */
export function associatedTokenAddress(mint: PublicKey, owner: PublicKey, tokenProgram: PublicKey = TOKEN_PROGRAM_ID, associatedTokenProgram: PublicKey = ASSOCIATED_TOKEN_PROGRAM_ID): PublicKey {
  return PublicKey.findProgramAddressSync([owner.toBuffer(), tokenProgram.toBuffer(), mint.toBuffer()], associatedTokenProgram)[0];
}
