// The product side of the hostile venue (test/helpers/hostileVenue.ts): plans which product builds to attack (by
// product and wallet), rewrites the simulator's answer with a product attack (hostileProducts.ts) and records what it
// served, so that the venue can land what the wallet would sign of it. A rule may serve its transaction with an
// address lookup table (hostileLookupTables.ts) created by an authority of the proxy's own.
import { Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import type { Venue } from '../../src/sim/venue.js';
import { productRequest, rewriteProductTransaction, transactionField, type ProductAttack, type ProductKind } from './hostileProducts.js';

/** One product attack rule: the builds of `product` for `wallet` are rewritten with `attack`. */
export interface ProductAttackRule {
  product: ProductKind;
  wallet: string;
  attack: ProductAttack;
  /** Attack at most this many builds (unlimited when omitted). */
  count?: number;
  /** Serve the rewrite as v0 with a lookup table created on the simulator's chain for it. */
  lookupTable?: boolean;
}

/** A product attack the venue served (or tried to). */
export interface ProductAttackRecord {
  /** The index planProduct returned for the rule that served it (unique for the venue's life). */
  rule: number;
  product: ProductKind;
  wallet: string;
  attack: ProductAttack;
  /** Whether the rewritten transaction reached the keeper; false with `error` when it could not be built. */
  served: boolean;
  error?: string;
  /** The honest transaction the simulator built, and the attacked one served in its place (base64). */
  honest?: string;
  transaction?: string;
  /** Base64 of the attacked message (what a signature signs). */
  message?: string;
  description?: string;
  strangerAccount?: string;
  /** The account the money goes into instead (an account created, an escrow of someone else's, the vault). */
  target?: string;
  /** The lookup table the served transaction loads accounts from. */
  table?: string;
  /** Signatures of it that landed (the wallet signed it). */
  landed: string[];
}

/** An HTTP answer of the proxy. */
export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The product side of the hostile venue: plans, records and rewrites product builds. */
export interface ProductProxy {
  plan(rule: ProductAttackRule): number;
  clearPlan(): void;
  attacks(): ProductAttackRecord[];
  /** Answers a product build request (attacked or forwarded), or undefined when it is not one. */
  build(method: string, pathAndQuery: string, path: string, text: string, forward: (body: string) => Promise<ProxyAnswer>): Promise<ProxyAnswer | undefined>;
  /** The attack whose served message is `message` (base64), if any. */
  attackedMessage(message: string): ProductAttackRecord | undefined;
}

/** A product proxy over a venue, paying its thefts to `stranger`. */
export function createProductProxy(venue: () => Venue, stranger: Keypair): ProductProxy {
  const rules: Array<ProductAttackRule & { index: number; used: number }> = [];
  const records: ProductAttackRecord[] = [];
  const byMessage = new Map<string, ProductAttackRecord>();
  // Creates and pays for the lookup tables (neither the wallet nor the stranger, whose balances tests compare).
  const tables = Keypair.generate();
  // Indexes stay unique across clearPlan, so that a record names the one rule that served it.
  let next = 0;
  return {
    plan: (rule) => {
      const index = next++;
      rules.push({ ...rule, index, used: 0 });
      return index;
    },
    clearPlan: () => {
      rules.length = 0;
    },
    attacks: () => [...records],
    attackedMessage: (message) => byMessage.get(message),
    build: async (method, _pathAndQuery, path, text, forward) => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text || '{}') as Record<string, unknown>;
      } catch {
        return undefined;
      }
      const request = productRequest(method, path, body);
      if (!request) return undefined;
      const rule = rules.find((r) => r.product === request.product && r.wallet === request.wallet && (r.count === undefined || r.used < r.count));
      const answer = await forward(text);
      if (!rule) return answer;
      rule.used += 1;
      const record: ProductAttackRecord = { rule: rule.index, product: request.product, wallet: request.wallet, attack: rule.attack, served: false, landed: [] };
      records.push(record);
      try {
        if (answer.status !== 200) throw new Error(`the simulator answered ${answer.status}: ${answer.body.slice(0, 200)}`);
        const built = JSON.parse(answer.body) as Record<string, unknown>;
        const field = transactionField(request.product);
        const honest = built[field];
        if (typeof honest !== 'string' || honest === '') throw new Error(`the simulator built no transaction: ${answer.body.slice(0, 200)}`);
        const rewrite = rewriteProductTransaction(VersionedTransaction.deserialize(Buffer.from(honest, 'base64')), request.product, rule.attack, { venue: venue(), wallet: new PublicKey(request.wallet), stranger, lookupTable: rule.lookupTable ? { authority: tables } : undefined });
        const served = Buffer.from(rewrite.tx.serialize()).toString('base64');
        const message = Buffer.from(rewrite.tx.message.serialize()).toString('base64');
        Object.assign(record, { served: true, honest, transaction: served, message, description: rewrite.description, strangerAccount: rewrite.strangerAccount, target: rewrite.target, table: rewrite.table });
        byMessage.set(message, record);
        return { ...answer, body: JSON.stringify({ ...built, [field]: served }) };
      } catch (err) {
        record.error = err instanceof Error ? err.message : String(err);
        return answer;
      }
    },
  };
}
