import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { Keypair, VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import { z } from 'zod';
import { BLOCKHASH_VALIDITY, feeOf } from '../chain/chain.js';
import { BLOCK_HEIGHT_OFFSET } from '../clock.js';
import { seedBytes } from '../rng.js';
import { invalidParam, method, RpcCode, RpcError, type MethodTable } from './jsonrpc.js';
import { blockTimeOf, configParam, contextSlot, FEATURE_SET, pubkeyParam, slotAt, SOLANA_CORE_VERSION, withContext, type RpcEnv } from './params.js';

/** Slots per epoch, as on mainnet. */
const SLOTS_PER_EPOCH = 432_000n;
/** Largest account data size a program may allocate (10 MiB). */
const MAX_ACCOUNT_DATA = 10 * 1024 * 1024;
/** How many recent slots getRecentPrioritizationFees reports. */
const PRIORITIZATION_FEE_SLOTS = 150;
/**
 * The first slot of the simulator's ledger. Nothing is ever pruned, and the finalized view trails the genesis slot
 * (at start it reads a slot before it), so the ledger is reported whole from slot 0: every slot a client can be
 * shown is at or after the first available block, and a signature search covers all of it.
 */
const FIRST_AVAILABLE_SLOT = 0n;
/** The identity getIdentity reports. */
const IDENTITY = Keypair.fromSeed(seedBytes('rpc-identity')).publicKey;

const readConfig = configParam({});

/** Cluster and clock methods: blockhash, slot, block height, epoch, health, version, fees, rent. */
export const clusterMethods: MethodTable<RpcEnv> = {
  getLatestBlockhash: method([['config', readConfig]], ([config], { venue }: RpcEnv) => {
    const slot = contextSlot(venue, config);
    const lastValidBlockHeight = slot - BLOCK_HEIGHT_OFFSET + BLOCKHASH_VALIDITY;
    return withContext(slot, { blockhash: venue.chain.blockhashAt(slot), lastValidBlockHeight });
  }),

  isBlockhashValid: method([['blockhash', z.string()], ['config', readConfig]], ([blockhash, config], { venue }: RpcEnv) =>
    withContext(contextSlot(venue, config), venue.chain.isBlockhashValid(blockhash)),
  ),

  getSlot: method([['config', readConfig]], ([config], { venue }: RpcEnv) => contextSlot(venue, config)),

  getBlockHeight: method([['config', readConfig]], ([config], { venue }: RpcEnv) => contextSlot(venue, config) - BLOCK_HEIGHT_OFFSET),

  getBlockTime: method([['slot', z.number().int().nonnegative()]], ([slot], { venue }: RpcEnv) => {
    if (BigInt(slot) > slotAt(venue, 'confirmed')) throw new RpcError(RpcCode.blockNotAvailable, `Block not available for slot ${slot}`);
    return blockTimeOf(venue, BigInt(slot));
  }),

  minimumLedgerSlot: method([], () => FIRST_AVAILABLE_SLOT),

  getFirstAvailableBlock: method([], () => FIRST_AVAILABLE_SLOT),

  getEpochInfo: method([['config', readConfig]], ([config], { venue }: RpcEnv) => {
    const slot = contextSlot(venue, config);
    return {
      absoluteSlot: slot,
      blockHeight: slot - BLOCK_HEIGHT_OFFSET,
      epoch: slot / SLOTS_PER_EPOCH,
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: venue.chain.history().size,
    };
  }),

  getEpochSchedule: method([], () => ({
    slotsPerEpoch: SLOTS_PER_EPOCH,
    leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
    warmup: false,
    firstNormalEpoch: 0,
    firstNormalSlot: 0,
  })),

  getHealth: method([], () => 'ok'),

  getVersion: method([], () => ({ 'solana-core': SOLANA_CORE_VERSION, 'feature-set': FEATURE_SET })),

  getIdentity: method([], () => ({ identity: IDENTITY.toBase58() })),

  getGenesisHash: method([], (_args, { venue }: RpcEnv) =>
    bs58.encode(createHash('sha256').update(`jup-keeper-sim:${venue.seed}:genesis`).digest()),
  ),

  getMinimumBalanceForRentExemption: method(
    [['dataLength', z.number().int().nonnegative().max(MAX_ACCOUNT_DATA)], ['config', readConfig]],
    ([dataLength], { venue }: RpcEnv) => venue.chain.rentExempt(dataLength),
  ),

  getFeeForMessage: method([['message', z.string()], ['config', readConfig]], ([encoded, config], { venue }: RpcEnv) => {
    const slot = contextSlot(venue, config);
    let message: VersionedMessage;
    try {
      message = VersionedMessage.deserialize(Buffer.from(encoded, 'base64'));
    } catch {
      throw invalidParam('failed to deserialize the message');
    }
    const fee = venue.chain.isBlockhashValid(message.recentBlockhash) ? feeOf(new VersionedTransaction(message)) : null;
    return withContext(slot, fee);
  }),

  getRecentPrioritizationFees: method([['addresses', z.array(pubkeyParam).nullish()]], ([addresses], { venue }: RpcEnv) => {
    if (addresses && addresses.length > 128) throw new RpcError(RpcCode.invalidParams, 'Invalid params: Too many inputs provided; max 128');
    const tip = venue.clock.slot();
    const out: Array<{ slot: bigint; prioritizationFee: number }> = [];
    for (let i = PRIORITIZATION_FEE_SLOTS - 1; i >= 0; i -= 1) {
      const slot = tip - BigInt(i);
      out.push({ slot, prioritizationFee: prioritizationFeeAt(venue.seed, slot) });
    }
    return out;
  }),
};

/** A quiet market's per-slot minimum priority fee (micro-lamports per CU): mostly 0, sometimes a little. */
function prioritizationFeeAt(seed: number, slot: bigint): number {
  const byte = createHash('sha256').update(`jup-keeper-sim:${seed}:fee:${slot}`).digest()[0] ?? 0;
  if (byte < 180) return 0;
  if (byte < 240) return 1_000 * (byte - 179);
  return 100_000;
}
