import { PublicKey, type VersionedTransaction } from '@solana/web3.js';
import { z } from 'zod';
import type { LandedTransaction, SimChain, TokenBalance } from '../chain/chain.js';
import { textOf } from '../chain/keys.js';
import { accountKeysOf } from '../chain/meta.js';
import type { Venue } from '../venue.js';
import { readMint, uiTokenAmount } from './accounts.js';
import { method, RpcCode, RpcError, type MethodTable } from './jsonrpc.js';
import { blockTimeOf, configParam, contextSlot, pubkeyParam, signatureParam, withContext, type Commitment, type RpcEnv } from './params.js';
import { uiInnerInstructions } from './parseInstruction.js';
import { airdropTransaction, encodeTransaction } from './wire.js';

/** Without searchTransactionHistory a node only looks in its recent status cache (about this many slots). */
const STATUS_CACHE_SLOTS = 300n;
const MAX_STATUS_QUERIES = 256;
const MEMO_PROGRAMS = new Set(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

const statusesConfig = z.looseObject({ searchTransactionHistory: z.boolean().optional() }).nullish();
const transactionConfig = configParam({
  encoding: z.enum(['json', 'jsonParsed', 'base64', 'base58']).optional(),
  maxSupportedTransactionVersion: z.number().int().min(0).max(255).optional(),
});
const signaturesConfig = configParam({
  limit: z.number().int().min(1).max(1000).optional(),
  before: signatureParam.optional(),
  until: signatureParam.optional(),
});

/** History methods: signature statuses, transactions, signatures of an address. */
export const historyMethods: MethodTable<RpcEnv> = {
  getSignatureStatuses: method([['signatures', z.array(signatureParam)], ['config', statusesConfig]], ([signatures, config], { venue }: RpcEnv) => {
    if (signatures.length > MAX_STATUS_QUERIES) {
      throw new RpcError(RpcCode.invalidParams, `Invalid params: Too many inputs provided; max ${MAX_STATUS_QUERIES}`);
    }
    const tip = venue.clock.slot();
    const value = signatures.map((signature) => {
      const s = venue.chain.signatureStatus(signature);
      if (!s || (!config?.searchTransactionHistory && tip - s.slot > STATUS_CACHE_SLOTS)) return null;
      return { slot: s.slot, confirmations: s.confirmations, err: s.err, confirmationStatus: s.confirmationStatus, status: s.err === null ? { Ok: null } : { Err: s.err } };
    });
    return withContext(tip, value);
  }),

  getTransaction: method([['signature', signatureParam], ['config', transactionConfig]], ([signature, config], { venue }: RpcEnv) => {
    const commitment = atLeastConfirmed(config?.commitment);
    const s = venue.chain.signatureStatus(signature);
    if (!s?.landed || !visibleAt(s.confirmationStatus, commitment)) return null;
    const tx = transactionOf(venue, signature, s.slot, s.landed);
    const max = config?.maxSupportedTransactionVersion;
    if (tx.version !== 'legacy' && (max === undefined || tx.version > max)) {
      throw new RpcError(
        RpcCode.transactionVersionNotSupported,
        `Transaction version (${tx.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${tx.version}`,
      );
    }
    const landed = s.landed;
    const encoding = config?.encoding ?? 'json';
    const keys = accountKeysOf(tx, landed.loadedAddresses);
    // An airdrop's transaction is drawn after the fact (faucet, recipient, system program); only the recipient's
    // balances were recorded, the others are read now.
    const balances = (which: 'preBalances' | 'postBalances') =>
      keys.map((k) => {
        const i = landed.accounts.findIndex((a) => a.equals(k));
        return i >= 0 ? (landed[which][i] ?? 0n) : venue.chain.lamports(k);
      });
    const base58Keys = keys.map(textOf);
    const loaded = { writable: landed.loadedAddresses.writable.map(textOf), readonly: landed.loadedAddresses.readonly.map(textOf) };
    // Each mint's decimals read once for this answer (a swap's balances name the same two mints up to four times).
    const decimals = new Map<string, number>();
    return {
      slot: s.slot,
      blockTime: blockTimeOf(venue, s.slot),
      ...(max === undefined ? {} : { version: tx.version }),
      transaction: encodeTransaction(tx, encoding, landed.loadedAddresses, landed.wire),
      meta: {
        err: s.err,
        status: s.err === null ? { Ok: null } : { Err: s.err },
        fee: landed.fee,
        preBalances: balances('preBalances'),
        postBalances: balances('postBalances'),
        innerInstructions: landed.innerInstructions ? uiInnerInstructions(landed.innerInstructions, base58Keys, encoding === 'jsonParsed' ? 'jsonParsed' : 'json') : null,
        logMessages: s.logs,
        preTokenBalances: tokenBalances(venue.chain, landed.preTokenBalances, decimals),
        postTokenBalances: tokenBalances(venue.chain, landed.postTokenBalances, decimals),
        rewards: [],
        // jsonParsed lists the loaded addresses among the message's account keys instead (Agave skips this field).
        ...(encoding === 'jsonParsed' ? {} : { loadedAddresses: loaded }),
        computeUnitsConsumed: landed.unitsConsumed,
      },
    };
  }),

  getSignaturesForAddress: method([['address', pubkeyParam], ['config', signaturesConfig]], ([address, config], { venue }: RpcEnv) => {
    const commitment = atLeastConfirmed(config?.commitment);
    contextSlot(venue, config);
    const limit = config?.limit ?? 1000;
    const entries = [...venue.chain.history().entries()].reverse();
    let start = 0;
    if (config?.before) {
      const i = entries.findIndex(([sig]) => sig === config.before);
      start = i < 0 ? entries.length : i + 1;
    }
    const out: unknown[] = [];
    for (const [signature, status] of entries.slice(start)) {
      if (out.length >= limit || signature === config?.until) break;
      if (!status.landed || !involves(status.landed, address)) continue;
      const s = venue.chain.signatureStatus(signature);
      if (!s || !visibleAt(s.confirmationStatus, commitment)) continue;
      out.push({
        signature,
        slot: s.slot,
        err: s.err,
        memo: memoOf(status.landed.tx),
        blockTime: blockTimeOf(venue, s.slot),
        confirmationStatus: s.confirmationStatus,
      });
    }
    return out;
  }),
};

function atLeastConfirmed(commitment: Commitment | undefined): Commitment {
  if (commitment === 'processed') throw new RpcError(RpcCode.invalidParams, 'Method does not support commitment below `confirmed`');
  return commitment ?? 'finalized';
}

function visibleAt(status: 'confirmed' | 'finalized', commitment: Commitment): boolean {
  return commitment !== 'finalized' || status === 'finalized';
}

function involves(landed: LandedTransaction, address: PublicKey): boolean {
  return landed.accounts.some((a) => a.equals(address));
}

/** The transaction of a status: as it landed, or the faucet transfer an airdrop stands for. */
function transactionOf(venue: Venue, signature: string, slot: bigint, landed: LandedTransaction): VersionedTransaction {
  if (landed.tx) return landed.tx;
  const recipient = landed.accounts[0] ?? PublicKey.default;
  const lamports = (landed.postBalances[0] ?? 0n) - (landed.preBalances[0] ?? 0n);
  return airdropTransaction(signature, recipient, lamports, venue.chain.blockhashAt(slot));
}

/** Token balances as answers carry them; `decimals` holds the mints read so far in this answer. */
function tokenBalances(chain: SimChain, balances: TokenBalance[], decimals: Map<string, number>) {
  return balances.map((b) => {
    let d = decimals.get(b.mint);
    if (d === undefined) {
      d = readMint(chain, new PublicKey(b.mint))?.decimals ?? 0;
      decimals.set(b.mint, d);
    }
    return { accountIndex: b.accountIndex, mint: b.mint, owner: b.owner, programId: b.programId, uiTokenAmount: uiTokenAmount(b.amount, d) };
  });
}

/** The memo field of getSignaturesForAddress: "[length] text" per memo instruction, or null. */
function memoOf(tx: VersionedTransaction | undefined): string | null {
  if (!tx) return null;
  const keys = tx.message.staticAccountKeys;
  const memos = tx.message.compiledInstructions
    .filter((ix) => MEMO_PROGRAMS.has(keys[ix.programIdIndex]?.toBase58() ?? ''))
    .map((ix) => `[${ix.data.length}] ${Buffer.from(ix.data).toString('utf8')}`);
  return memos.length > 0 ? memos.join('; ') : null;
}
