import type { PublicKey } from '@solana/web3.js';
import type { Intent } from '../../sdk/intents.js';
import type { ProductCheck } from '../../solana/guardTypes.js';
import { predictionBuyCheck, predictionClaimCheck, predictionCloseCheck, predictionSellCheck } from './prediction.js';
import { clawbackCheck, sendCheck } from './send.js';
import { triggerCancelCheck, triggerCreateCheck } from './trigger.js';

// The guard's product checks (GuardPolicy.product): each product's own instruction, decoded with the programs'
// layouts (src/jupiter/programs), held to the intent. The rules they break are PRODUCT_RULES (src/solana/guardTypes.ts).

/** What a product check needs besides the intent: the wallet, and what the engine itself made for the build. */
export interface ProductCheckContext {
  wallet: PublicKey;
  /** A send's invite signer, derived by the engine from its own code (BuiltTransaction.engineSigners). */
  inviteSigner?: string | undefined;
}

/**
 * The product check of an intent; undefined for a swap, whose terms the guard holds by value (GuardPolicy.swap).
 * The recurring and lend checks load their programs' SDKs (@jup-ag/dca-sdk with Anchor, @jup-ag/lend: about a third
 * of the modules a keeper would load) on first use, not at start-up.
 */
export async function productCheckFor(intent: Intent, ctx: ProductCheckContext): Promise<ProductCheck | undefined> {
  const { wallet } = ctx;
  switch (intent.kind) {
    case 'swap':
      return undefined;
    case 'trigger.create':
      return triggerCreateCheck(intent, wallet);
    case 'trigger.cancel':
      return triggerCancelCheck(intent, wallet);
    case 'recurring.create':
      return (await import('./recurring.js')).recurringCreateCheck(intent, wallet);
    case 'recurring.cancel':
      return (await import('./recurring.js')).recurringCancelCheck(intent, wallet);
    case 'lend.deposit':
    case 'lend.mint':
      return (await import('./lend.js')).lendDepositCheck(intent, wallet);
    case 'lend.withdraw':
    case 'lend.redeem':
      return (await import('./lend.js')).lendWithdrawCheck(intent, wallet);
    case 'prediction.buy':
      return predictionBuyCheck(intent, wallet);
    case 'prediction.sell':
    case 'prediction.closePosition':
      return predictionSellCheck(intent, wallet);
    case 'prediction.closeOrder':
      return predictionCloseCheck(intent, wallet);
    case 'prediction.claim':
      return predictionClaimCheck(intent, wallet);
    case 'send':
      return sendCheck(intent, wallet, ctx.inviteSigner);
    case 'send.clawback':
      return clawbackCheck(intent, wallet);
    default:
      return unchecked(intent);
  }
}

/** Every intent kind has its product check: a kind added without one does not compile. */
function unchecked(intent: never): never {
  throw new Error(`no product check for intent kind ${(intent as { kind: string }).kind}`);
}
