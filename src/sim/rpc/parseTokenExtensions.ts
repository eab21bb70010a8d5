import { uiTokenAmount } from './accounts.js';
import { NotParsable, type DataReader, type IxAccounts, type ParsedIx } from './instructionData.js';

/** The parsable-program name Agave's token parser reports in its errors. */
export const TOKEN = 'SplToken';

/** Agave's UiAuthorityType names, by the AuthorityType byte of SetAuthority. */
export const AUTHORITY_TYPES = [
  'mintTokens', 'freezeAccount', 'accountOwner', 'closeAccount', 'transferFeeConfig', 'withheldWithdraw', 'closeMint',
  'interestRate', 'permanentDelegate', 'confidentialTransferMint', 'transferHookProgramId',
  'confidentialTransferFeeConfig', 'metadataPointer', 'groupPointer', 'groupMemberPointer', 'scaledUiAmount', 'pause',
  'permissionedBurn',
] as const;

/** Agave's UiExtensionType names, by the u16 value of Token-2022's ExtensionType (20..23 are not in name order). */
const EXTENSION_TYPES = [
  'uninitialized', 'transferFeeConfig', 'transferFeeAmount', 'mintCloseAuthority', 'confidentialTransferMint',
  'confidentialTransferAccount', 'defaultAccountState', 'immutableOwner', 'memoTransfer', 'nonTransferable',
  'interestBearingConfig', 'cpiGuard', 'permanentDelegate', 'nonTransferableAccount', 'transferHook',
  'transferHookAccount', 'confidentialTransferFeeConfig', 'confidentialTransferFeeAmount', 'metadataPointer',
  'tokenMetadata', 'groupPointer', 'tokenGroup', 'groupMemberPointer', 'tokenGroupMember', 'confidentialMintBurn',
  'scaledUiAmount', 'pausable', 'pausableAccount', 'permissionedBurn',
] as const;

const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'] as const;

/**
 * The extension types listed in GetAccountDataSize or Reallocate data: u16 values, two bytes each. An odd byte or
 * an unknown value makes the whole instruction unparsable, as in Token-2022's unpacker.
 */
export function extensionTypes(bytes: Uint8Array): string[] {
  if (bytes.length % 2 !== 0) throw new NotParsable(TOKEN);
  const out: string[] = [];
  for (let i = 0; i < bytes.length; i += 2) {
    const name = EXTENSION_TYPES[bytes[i]! | (bytes[i + 1]! << 8)];
    if (name === undefined) throw new NotParsable(TOKEN);
    out.push(name);
  }
  return out;
}

/**
 * The Token-2022 instructions past the classic set, as Agave parses them (parse_token/extension/*.rs): mint close
 * authority, transfer fees, default account state, reallocate, required memos, the native mint, non-transferable
 * mints, the CPI guard, permanent delegates and excess-lamport withdrawals. Other extensions (confidential
 * transfers, interest, transfer hooks, pointers, groups, metadata, scaled amounts, pausing, permissioned burns,
 * unwrapLamports, batch) throw NotParsable, so they show partially decoded.
 */
export function parseTokenExtension(tag: number, data: Uint8Array, r: DataReader, a: IxAccounts): ParsedIx {
  switch (tag) {
    case 25: {
      const newAuthority = r.optionPubkey();
      a.atLeast(1);
      return { type: 'initializeMintCloseAuthority', info: { mint: a.key(0), newAuthority } };
    }
    case 26:
      return transferFee(r, a);
    case 28: {
      // The extension's own data is exactly [instruction, state].
      if (data.length !== 3) throw new NotParsable(TOKEN);
      const accountState = ACCOUNT_STATES[data[2]!];
      if (accountState === undefined || data[1]! > 1) throw new NotParsable(TOKEN);
      if (data[1] === 0) {
        a.atLeast(1);
        return { type: 'initializeDefaultAccountState', info: { mint: a.key(0), accountState } };
      }
      a.atLeast(2);
      const info: Record<string, unknown> = { mint: a.key(0), accountState };
      a.signers(info, 1, 'freezeAuthority', 'multisigFreezeAuthority');
      return { type: 'updateDefaultAccountState', info };
    }
    case 29: {
      const types = extensionTypes(r.rest());
      a.atLeast(4);
      const info: Record<string, unknown> = { account: a.key(0), payer: a.key(1), systemProgram: a.key(2), extensionTypes: types };
      a.signers(info, 3, 'owner', 'multisigOwner');
      return { type: 'reallocate', info };
    }
    case 30:
    case 34: {
      const toggle = data[1] === 0 ? 'enable' : data[1] === 1 ? 'disable' : undefined;
      if (toggle === undefined) throw new NotParsable(TOKEN);
      a.atLeast(2);
      const info: Record<string, unknown> = { account: a.key(0) };
      a.signers(info, 1, 'owner', 'multisigOwner');
      return { type: `${toggle}${tag === 30 ? 'RequiredMemoTransfers' : 'CpiGuard'}`, info };
    }
    case 31:
      a.atLeast(3);
      return { type: 'createNativeMint', info: { payer: a.key(0), nativeMint: a.key(1), systemProgram: a.key(2) } };
    case 32:
      a.atLeast(1);
      return { type: 'initializeNonTransferableMint', info: { mint: a.key(0) } };
    case 35: {
      const delegate = r.pubkey();
      a.atLeast(1);
      return { type: 'initializePermanentDelegate', info: { mint: a.key(0), delegate } };
    }
    case 38: {
      a.atLeast(3);
      const info: Record<string, unknown> = { source: a.key(0), destination: a.key(1) };
      a.signers(info, 2, 'authority', 'multisigAuthority');
      return { type: 'withdrawExcessLamports', info };
    }
    default:
      throw new NotParsable(TOKEN);
  }
}

/** The transfer-fee extension's instructions (its own tag follows the token instruction's). */
function transferFee(r: DataReader, a: IxAccounts): ParsedIx {
  switch (r.u8()) {
    case 0: {
      const configAuthority = r.optionPubkey();
      const withdrawAuthority = r.optionPubkey();
      const transferFeeBasisPoints = r.u16();
      const maximumFee = r.u64();
      a.atLeast(1);
      const info: Record<string, unknown> = { mint: a.key(0), transferFeeBasisPoints, maximumFee };
      if (configAuthority !== null) info.transferFeeConfigAuthority = configAuthority;
      if (withdrawAuthority !== null) info.withdrawWithheldAuthority = withdrawAuthority;
      return { type: 'initializeTransferFeeConfig', info };
    }
    case 1: {
      const amount = r.u64();
      const decimals = r.u8();
      const fee = r.u64();
      a.atLeast(4);
      const info: Record<string, unknown> = {
        source: a.key(0),
        mint: a.key(1),
        destination: a.key(2),
        tokenAmount: uiTokenAmount(amount, decimals),
        feeAmount: uiTokenAmount(fee, decimals),
      };
      a.signers(info, 3, 'authority', 'multisigAuthority');
      return { type: 'transferCheckedWithFee', info };
    }
    case 2: {
      a.atLeast(3);
      const info: Record<string, unknown> = { mint: a.key(0), feeRecipient: a.key(1) };
      a.signers(info, 2, 'withdrawWithheldAuthority', 'multisigWithdrawWithheldAuthority');
      return { type: 'withdrawWithheldTokensFromMint', info };
    }
    case 3: {
      const sources = r.u8();
      a.atLeast(3 + sources);
      const firstSource = Math.max(0, a.length - sources);
      const info: Record<string, unknown> = { mint: a.key(0), feeRecipient: a.key(1), sourceAccounts: a.keysFrom(firstSource) };
      a.signers(info, 2, 'withdrawWithheldAuthority', 'multisigWithdrawWithheldAuthority', firstSource);
      return { type: 'withdrawWithheldTokensFromAccounts', info };
    }
    case 4:
      a.atLeast(1);
      return { type: 'harvestWithheldTokensToMint', info: { mint: a.key(0), sourceAccounts: a.keysFrom(1) } };
    case 5: {
      const transferFeeBasisPoints = r.u16();
      const maximumFee = r.u64();
      a.atLeast(2);
      const info: Record<string, unknown> = { mint: a.key(0), transferFeeBasisPoints, maximumFee };
      // Agave spells this one field with a lower-case t.
      a.signers(info, 1, 'transferFeeConfigAuthority', 'multisigtransferFeeConfigAuthority');
      return { type: 'setTransferFee', info };
    }
    default:
      throw new NotParsable(TOKEN);
  }
}
