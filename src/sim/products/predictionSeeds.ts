import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { orderAtaAddress, PREDICTION_PROGRAM, vaultAddress } from '../../jupiter/programs/prediction.js';

/*
 * The simulator's guesses about the Prediction Market program, kept apart from its published layouts
 * (src/jupiter/programs/prediction.ts): the program's generated client publishes no seeds for the order, position
 * and market-result accounts nor the vault's token account, nor how the market id hash is made. The simulator
 * needs some addresses; nothing outside it may rely on these (the guard does not).
 */

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
const pda = (seeds: Buffer[]): { address: PublicKey; bump: number } => {
  const [address, bump] = PublicKey.findProgramAddressSync(seeds, PREDICTION_PROGRAM);
  return { address, bump };
};

/** The vault's token account. GUESS: the vault PDA's associated token account (the client takes it as an argument). */
export function vaultTokenAccountAddress(settlementMint: PublicKey): PublicKey {
  return orderAtaAddress(vaultAddress(settlementMint).address, settlementMint);
}

/** An order account. GUESS (the client publishes no seeds): PDA of ["order", owner, sha256(externalOrderId)]. */
export function orderAddress(owner: PublicKey, externalOrderId: string): { address: PublicKey; bump: number } {
  return pda([Buffer.from('order'), owner.toBuffer(), sha256(externalOrderId)]);
}

/** A position account. GUESS (no published seeds): PDA of ["position", owner, sha256(marketId), [isYes ? 1 : 0]]. */
export function positionAddress(owner: PublicKey, marketId: string, isYes: boolean): { address: PublicKey; bump: number } {
  return pda([Buffer.from('position'), owner.toBuffer(), sha256(marketId), Buffer.from([isYes ? 1 : 0])]);
}

/** A market's result account. GUESS (no published seeds): PDA of ["market_result", sha256(marketId)]. */
export function marketResultAddress(marketId: string): { address: PublicKey; bump: number } {
  return pda([Buffer.from('market_result'), sha256(marketId)]);
}

/** A market's id hash, lowercase hex: the live API's (src/jupiter/programs/prediction.ts marketIdHash). */
export { marketIdHash } from '../../jupiter/programs/prediction.js';
