import { VersionedTransaction, type PublicKey } from '@solana/web3.js';
import { z } from 'zod';
import { WSOL_MINT } from '../../lib/mints.js';
import { firstSignature, type ReturnData, type SimulationResult } from '../chain/chain.js';
import { textOf } from '../chain/keys.js';
import { accountKeysOf } from '../chain/meta.js';
import { landedDespiteError, type TxErrorJson } from '../chain/txErrors.js';
import { encodeAccount, type UiAccount } from './accounts.js';
import { method, RpcCode, RpcError, type MethodTable } from './jsonrpc.js';
import { commitmentParam, configParam, contextSlot, pubkeyParam, withContext, type RpcEnv } from './params.js';
import { uiInnerInstructions } from './parseInstruction.js';
import { decodeTransaction, txErrorMessage } from './wire.js';

const txEncoding = z.enum(['base58', 'base64']);
const sendConfig = z
  .looseObject({
    encoding: txEncoding.optional(),
    skipPreflight: z.boolean().optional(),
    preflightCommitment: commitmentParam.optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    minContextSlot: z.number().int().nonnegative().optional(),
  })
  .nullish();
const simulateConfig = configParam({
  encoding: txEncoding.optional(),
  sigVerify: z.boolean().optional(),
  replaceRecentBlockhash: z.boolean().optional(),
  innerInstructions: z.boolean().optional(),
  accounts: z
    .object({ addresses: z.array(pubkeyParam), encoding: z.enum(['base64', 'jsonParsed'], { error: 'must be base64 or jsonParsed' }).optional() })
    .nullish(),
});

/** Transaction methods: send, simulate, airdrop. */
export const txMethods: MethodTable<RpcEnv> = {
  /**
   * Sends like a node: a resend of a known transaction answers its signature; unless skipPreflight, a transaction
   * that would fail is simulated and refused (-32002) and never lands. With skipPreflight it lands and fails, fee
   * charged. What would never land (expired blockhash, fee payer without funds) is refused either way.
   */
  sendTransaction: method([['transaction', z.string()], ['config', sendConfig]], ([encoded, config], { venue, logger }: RpcEnv) => {
    const tx = decodeTransaction(encoded, config?.encoding ?? 'base58');
    // Agave reads the processed bank when preflight is skipped, the preflight commitment's bank otherwise.
    const commitment = config?.skipPreflight ? 'processed' : config?.preflightCommitment;
    contextSlot(venue, { commitment, minContextSlot: config?.minContextSlot });
    const signature = firstSignature(tx);
    if (venue.chain.signatureStatus(signature)) return signature;
    const preflight = venue.preflight(tx);
    if (preflight.kind === 'bad-signature') throw signatureFailure();
    const { err, logs, unitsConsumed } = preflight.result;
    if (err !== null && (!config?.skipPreflight || !landedDespiteError(err))) {
      logger.debug({ signature, err }, 'rpc sendTransaction refused by preflight');
      throw preflightFailure({ err, logs, unitsConsumed });
    }
    const outcome = venue.settle(tx);
    logger.debug({ signature: outcome.signature, outcome: outcome.kind }, 'rpc sendTransaction settled');
    if (outcome.kind === 'rejected') throw preflightFailure({ err: outcome.err, logs: outcome.logs, unitsConsumed: 0n });
    return outcome.signature;
  }),

  simulateTransaction: method([['transaction', z.string()], ['config', simulateConfig]], ([encoded, config], { venue }: RpcEnv) => {
    const sigVerify = config?.sigVerify ?? false;
    if (sigVerify && config?.replaceRecentBlockhash) {
      throw new RpcError(RpcCode.invalidParams, 'Invalid params: sigVerify may not be used with replaceRecentBlockhash');
    }
    let tx = decodeTransaction(encoded, config?.encoding ?? 'base58');
    const slot = contextSlot(venue, config);
    let replacementBlockhash: { blockhash: string; lastValidBlockHeight: bigint } | null = null;
    if (config?.replaceRecentBlockhash) {
      const latest = venue.chain.latestBlockhash();
      replacementBlockhash = { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight };
      tx = VersionedTransaction.deserialize(tx.serialize());
      tx.message.recentBlockhash = latest.blockhash;
    }
    const addresses = config?.accounts?.addresses;
    const keyCount = tx.message.staticAccountKeys.length + tx.message.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
    if (addresses && addresses.length > keyCount) {
      throw new RpcError(RpcCode.invalidParams, `Invalid params: Too many accounts provided; max ${keyCount}`);
    }
    const preflight = venue.preflight(tx, sigVerify);
    if (preflight.kind === 'bad-signature') throw signatureFailure();
    const r = preflight.result;
    const accounts = addresses ? postAccounts(venue.chain, r, addresses, config?.accounts?.encoding ?? 'base64') : null;
    // Agave records CPIs only when asked, and has none to show for a transaction refused before it ran.
    const inner = config?.innerInstructions && r.innerInstructions
      ? uiInnerInstructions(r.innerInstructions, accountKeysOf(tx, r.loadedAddresses).map(textOf), 'jsonParsed')
      : null;
    return withContext(slot, {
      err: r.err,
      logs: r.logs,
      accounts,
      unitsConsumed: r.unitsConsumed,
      returnData: uiReturnData(r.returnData),
      innerInstructions: inner,
      replacementBlockhash,
    });
  }),

  requestAirdrop: method(
    [['pubkey', pubkeyParam], ['lamports', z.number().int().positive().max(Number.MAX_SAFE_INTEGER)], ['config', configParam({})]],
    ([pubkey, lamports], { venue }: RpcEnv) => venue.airdrop(pubkey, WSOL_MINT, BigInt(lamports)),
  ),
};

/** Accounts after a simulation: those it touched as it left them, the others as they are; all null if it failed. */
function postAccounts(chain: RpcEnv['venue']['chain'], r: SimulationResult, addresses: PublicKey[], encoding: 'base64' | 'jsonParsed'): Array<UiAccount | null> {
  if (r.err !== null) return addresses.map(() => null);
  const touched = new Map(r.postAccounts.map((a) => [textOf(a.address), a.account]));
  return addresses.map((address) => {
    const acc = touched.get(textOf(address)) ?? chain.account(address);
    if (!acc || (acc.lamports === 0 && acc.data.length === 0)) return null;
    return encodeAccount(chain, acc, encoding);
  });
}

/** Return data as answers carry it: the program and the bytes in base64. */
function uiReturnData(data: ReturnData | null): { programId: string; data: [string, 'base64'] } | null {
  return data ? { programId: data.programId.toBase58(), data: [Buffer.from(data.data).toString('base64'), 'base64'] } : null;
}

function signatureFailure(): RpcError {
  return new RpcError(RpcCode.signatureVerificationFailure, 'Transaction signature verification failure');
}

function preflightFailure(r: { err: TxErrorJson; logs: string[]; unitsConsumed: bigint }): RpcError {
  return new RpcError(RpcCode.preflightFailure, `Transaction simulation failed: ${txErrorMessage(r.err)}`, {
    err: r.err,
    logs: r.logs,
    accounts: null,
    unitsConsumed: r.unitsConsumed,
    returnData: null,
  });
}
