import { AddressLookupTableAccount, PublicKey, type AccountInfo, type VersionedTransaction } from '@solana/web3.js';
import type { TransactionMetadata } from 'litesvm/dist/internal.js';
import type { InnerInstructionList, LoadedAddresses, ReturnData } from './types.js';

/** A v0 transaction's lookups resolved to nothing (legacy transactions, or before a table could be read). */
export const NO_LOADED_ADDRESSES: LoadedAddresses = Object.freeze({ writable: [], readonly: [] });

/**
 * The CPIs the runtime recorded, one list per top-level instruction, as LiteSVM reports them. Their account indexes
 * point into the transaction's full key list (static keys, then the loaded writable, then the loaded readonly ones).
 */
export function innerInstructionsOf(meta: TransactionMetadata): InnerInstructionList {
  return meta.innerInstructions().map((list) =>
    list.map((inner) => {
      const ix = inner.instruction();
      return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: ix.data(), stackHeight: inner.stackHeight() };
    }),
  );
}

/** The return data the last program set, or null when it set none (the runtime records only non-empty data). */
export function returnDataOf(meta: TransactionMetadata): ReturnData | null {
  const r = meta.returnData();
  const data = r.data();
  return data.length > 0 ? { programId: new PublicKey(r.programId()), data } : null;
}

/**
 * The addresses a v0 transaction loads from its lookup tables, read from the tables' current state (what the
 * runtime reads when it loads the transaction). A missing table or index is left out: such a transaction is
 * refused before it runs (AddressLookupTableNotFound, InvalidAddressLookupTableIndex), so nothing indexes into it.
 */
export function loadedAddressesOf(tx: VersionedTransaction, read: (address: PublicKey) => AccountInfo<Uint8Array> | null): LoadedAddresses {
  const lookups = tx.message.addressTableLookups;
  if (lookups.length === 0) return NO_LOADED_ADDRESSES;
  const writable: PublicKey[] = [];
  const readonly: PublicKey[] = [];
  for (const lookup of lookups) {
    const account = read(lookup.accountKey);
    if (!account) continue;
    let addresses: PublicKey[];
    try {
      addresses = AddressLookupTableAccount.deserialize(account.data).addresses;
    } catch {
      continue;
    }
    for (const i of lookup.writableIndexes) if (addresses[i]) writable.push(addresses[i]);
    for (const i of lookup.readonlyIndexes) if (addresses[i]) readonly.push(addresses[i]);
  }
  return { writable, readonly };
}

/** Every account key of a transaction in the runtime's order: static keys, loaded writable, loaded readonly. */
export function accountKeysOf(tx: VersionedTransaction, loaded: LoadedAddresses): PublicKey[] {
  return [...tx.message.staticAccountKeys, ...loaded.writable, ...loaded.readonly];
}

/** Inner instructions of the top-level instructions before `index` only: what ran before a failure at `index`. */
export function innerInstructionsBefore(list: InnerInstructionList, index: number): InnerInstructionList {
  return list.slice(0, index);
}
