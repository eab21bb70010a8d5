import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import type { LoadedAddresses } from '../chain/chain.js';
import { describeTxError, type TxErrorJson } from '../chain/txErrors.js';
import { RpcCode, RpcError } from './jsonrpc.js';
import { parseUiInstruction } from './parseInstruction.js';

/** Largest serialized transaction a node accepts (the packet size less headers). */
export const PACKET_DATA_SIZE = 1232;
const MAX_BASE64_SIZE = 1644;
const MAX_BASE58_SIZE = 1683;
const TX_TYPE = 'solana_sdk::transaction::versioned::VersionedTransaction';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Stands for LiteSVM's faucet (which signs airdrops with a key it keeps) in the airdrop transactions RPC shows. */
export const FAUCET_ADDRESS = new PublicKey(createHash('sha256').update('jup-keeper-sim:faucet').digest());

/** Decodes a wire transaction as sendTransaction and simulateTransaction receive it; bad input is -32602. */
export function decodeTransaction(encoded: string, encoding: 'base58' | 'base64'): VersionedTransaction {
  const max = encoding === 'base58' ? MAX_BASE58_SIZE : MAX_BASE64_SIZE;
  if (encoded.length > max) {
    throw invalid(`${encoding} encoded ${TX_TYPE} too large: ${encoded.length} bytes (max: encoded/raw ${max}/${PACKET_DATA_SIZE})`);
  }
  let bytes: Uint8Array;
  if (encoding === 'base58') {
    try {
      bytes = bs58.decode(encoded);
    } catch {
      throw invalid('invalid base58 encoding: InvalidCharacter');
    }
  } else {
    if (!BASE64.test(encoded) || encoded.length % 4 !== 0) throw invalid('invalid base64 encoding: InvalidByte');
    bytes = Buffer.from(encoded, 'base64');
  }
  if (bytes.length > PACKET_DATA_SIZE) {
    throw invalid(`decoded ${TX_TYPE} too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  }
  let tx: VersionedTransaction;
  try {
    tx = VersionedTransaction.deserialize(bytes);
  } catch (err) {
    throw invalid(`failed to deserialize ${TX_TYPE}: ${err instanceof Error ? err.message : 'invalid bytes'}`);
  }
  if (!wellFormed(tx)) throw invalid('invalid transaction: Transaction failed to sanitize accounts offsets correctly');
  return tx;
}

/** The part of sanitization LiteSVM would otherwise report as an opaque failure: indexes within bounds. */
function wellFormed(tx: VersionedTransaction): boolean {
  const m = tx.message;
  if (m.header.numRequiredSignatures < 1 || tx.signatures.length !== m.header.numRequiredSignatures) return false;
  const keys = m.staticAccountKeys.length + m.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
  if (m.header.numRequiredSignatures > m.staticAccountKeys.length) return false;
  return m.compiledInstructions.every((ix) => ix.programIdIndex < m.staticAccountKeys.length && ix.programIdIndex > 0 && ix.accountKeyIndexes.every((i) => i < keys));
}

function invalid(message: string): RpcError {
  return new RpcError(RpcCode.invalidParams, `Invalid params: ${message}`);
}

const TX_ERROR_MESSAGES: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  AddressLookupTableNotFound: 'Transaction loads an address table account that doesn\'t exist',
};

/** The text a node prints for a transaction error ("Blockhash not found", "Error processing Instruction 3: ..."). */
export function txErrorMessage(err: TxErrorJson): string {
  if (typeof err === 'string') return TX_ERROR_MESSAGES[err] ?? err;
  const rent = err.InsufficientFundsForRent as { account_index?: number } | undefined;
  if (rent) return `Transaction results in an account (${rent.account_index ?? 0}) with insufficient funds for rent`;
  return describeTxError(err);
}

/** Encodings getTransaction answers in. */
export type TransactionEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

/**
 * A transaction as getTransaction's `transaction` field carries it, in the requested encoding. jsonParsed lists the
 * addresses loaded from lookup tables after the static keys and parses the instructions of the programs Agave parses.
 * `wire` is the transaction's bytes when they are known (a landed transaction's, as the VM ran them).
 */
export function encodeTransaction(tx: VersionedTransaction, encoding: TransactionEncoding, loaded: LoadedAddresses, wire?: Uint8Array): unknown {
  if (encoding === 'base64') return [Buffer.from(wire ?? tx.serialize()).toString('base64'), 'base64'];
  if (encoding === 'base58') return [bs58.encode(wire ?? tx.serialize()), 'base58'];
  const m = tx.message;
  const keys = m.staticAccountKeys;
  const signatures = tx.signatures.map((s) => bs58.encode(s));
  const lookups = m.version === 0
    ? { addressTableLookups: m.addressTableLookups.map((l) => ({ accountKey: l.accountKey.toBase58(), writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) }
    : {};
  if (encoding === 'json') {
    return {
      signatures,
      message: {
        header: m.header,
        accountKeys: keys.map((k) => k.toBase58()),
        recentBlockhash: m.recentBlockhash,
        instructions: m.compiledInstructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accountKeyIndexes, data: bs58.encode(ix.data), stackHeight: null })),
        ...lookups,
      },
    };
  }
  const lookupKeys = (list: PublicKey[], writable: boolean) => list.map((k) => ({ pubkey: k.toBase58(), signer: false, writable, source: 'lookupTable' }));
  const accountKeys = [
    ...keys.map((k, i) => ({ pubkey: k.toBase58(), signer: m.isAccountSigner(i), writable: m.isAccountWritable(i), source: 'transaction' })),
    ...lookupKeys(loaded.writable, true),
    ...lookupKeys(loaded.readonly, false),
  ];
  const allKeys = accountKeys.map((k) => k.pubkey);
  return {
    signatures,
    message: {
      accountKeys,
      recentBlockhash: m.recentBlockhash,
      // Top-level instructions have no stack height in answers (null), as in Agave.
      instructions: m.compiledInstructions.map((ix) => parseUiInstruction({ programIdIndex: ix.programIdIndex, accounts: ix.accountKeyIndexes, data: ix.data }, allKeys, null)),
      ...lookups,
    },
  };
}

/**
 * The transaction of a faucet airdrop as RPC shows it: a system transfer from the faucet, with the airdrop's
 * signature (LiteSVM signs it with a key of its own that the simulator does not see).
 */
export function airdropTransaction(signature: string, recipient: PublicKey, lamports: bigint, blockhash: string): VersionedTransaction {
  const message = new TransactionMessage({
    payerKey: FAUCET_ADDRESS,
    recentBlockhash: blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: FAUCET_ADDRESS, toPubkey: recipient, lamports })],
  }).compileToLegacyMessage();
  return new VersionedTransaction(message, [bs58.decode(signature)]);
}
