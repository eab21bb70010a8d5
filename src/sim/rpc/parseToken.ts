import { uiTokenAmount } from './accounts.js';
import { DataReader, IxAccounts, NotParsable, strictUtf8, type CompiledIx, type ParsedIx } from './instructionData.js';
import { AUTHORITY_TYPES, extensionTypes, parseTokenExtension, TOKEN } from './parseTokenExtensions.js';

/** SetAuthority's authority types that belong to an account (the others belong to a mint). */
const ACCOUNT_AUTHORITIES = new Set(['accountOwner', 'closeAccount']);

/**
 * Parses an SPL Token or Token-2022 instruction as Agave's parse_token.rs does (one parser serves both programs):
 * the instruction type, and its info with Agave's field names, plain amounts as strings, checked amounts as
 * UiTokenAmount, and the authority (or the multisig and its signers). Throws NotParsable where Agave's parser fails;
 * which check fails first does not matter, as every failure shows the instruction partially decoded.
 */
export function parseToken(ix: CompiledIx, keys: readonly string[]): ParsedIx {
  const a = new IxAccounts(ix, keys, TOKEN);
  const r = new DataReader(ix.data, TOKEN);
  const tag = r.u8();
  /** An instruction whose account at `last` is its authority, with the accounts before it named by `fields`. */
  const signed = (type: string, fields: string[], extra: Record<string, unknown>, last: number, owner: string, multisig: string): ParsedIx => {
    a.atLeast(fields.length + 1);
    const info: Record<string, unknown> = {};
    fields.forEach((f, i) => (info[f] = a.key(i)));
    Object.assign(info, extra);
    a.signers(info, last, owner, multisig);
    return { type, info };
  };
  const amount = () => ({ amount: r.u64().toString() });
  const checked = () => {
    const value = r.u64();
    return { tokenAmount: uiTokenAmount(value, r.u8()) };
  };
  switch (tag) {
    case 0:
    case 20: {
      const decimals = r.u8();
      const mintAuthority = r.pubkey();
      const freezeAuthority = r.optionPubkey();
      a.atLeast(tag === 0 ? 2 : 1);
      const info: Record<string, unknown> = { mint: a.key(0), decimals, mintAuthority };
      if (tag === 0) info.rentSysvar = a.key(1);
      if (freezeAuthority !== null) info.freezeAuthority = freezeAuthority;
      return { type: tag === 0 ? 'initializeMint' : 'initializeMint2', info };
    }
    case 1:
      a.atLeast(4);
      return { type: 'initializeAccount', info: { account: a.key(0), mint: a.key(1), owner: a.key(2), rentSysvar: a.key(3) } };
    case 2: {
      const m = r.u8();
      a.atLeast(3);
      return { type: 'initializeMultisig', info: { multisig: a.key(0), rentSysvar: a.key(1), signers: a.keysFrom(2), m } };
    }
    case 19: {
      const m = r.u8();
      a.atLeast(2);
      return { type: 'initializeMultisig2', info: { multisig: a.key(0), signers: a.keysFrom(1), m } };
    }
    case 3:
      return signed('transfer', ['source', 'destination'], amount(), 2, 'authority', 'multisigAuthority');
    case 4:
      return signed('approve', ['source', 'delegate'], amount(), 2, 'owner', 'multisigOwner');
    case 5:
      return signed('revoke', ['source'], {}, 1, 'owner', 'multisigOwner');
    case 6: {
      const authorityType = AUTHORITY_TYPES[r.u8()];
      if (authorityType === undefined) throw new NotParsable(TOKEN);
      const newAuthority = r.optionPubkey();
      const owned = ACCOUNT_AUTHORITIES.has(authorityType) ? 'account' : 'mint';
      return signed('setAuthority', [owned], { authorityType, newAuthority }, 1, 'authority', 'multisigAuthority');
    }
    case 7:
      return signed('mintTo', ['mint', 'account'], amount(), 2, 'mintAuthority', 'multisigMintAuthority');
    case 8:
      return signed('burn', ['account', 'mint'], amount(), 2, 'authority', 'multisigAuthority');
    case 9:
      return signed('closeAccount', ['account', 'destination'], {}, 2, 'owner', 'multisigOwner');
    case 10:
      return signed('freezeAccount', ['account', 'mint'], {}, 2, 'freezeAuthority', 'multisigFreezeAuthority');
    case 11:
      return signed('thawAccount', ['account', 'mint'], {}, 2, 'freezeAuthority', 'multisigFreezeAuthority');
    case 12:
      return signed('transferChecked', ['source', 'mint', 'destination'], checked(), 3, 'authority', 'multisigAuthority');
    case 13:
      return signed('approveChecked', ['source', 'mint', 'delegate'], checked(), 3, 'owner', 'multisigOwner');
    case 14:
      return signed('mintToChecked', ['mint', 'account'], checked(), 2, 'mintAuthority', 'multisigMintAuthority');
    case 15:
      return signed('burnChecked', ['account', 'mint'], checked(), 2, 'authority', 'multisigAuthority');
    case 16: {
      const owner = r.pubkey();
      a.atLeast(3);
      return { type: 'initializeAccount2', info: { account: a.key(0), mint: a.key(1), owner, rentSysvar: a.key(2) } };
    }
    case 17:
      a.atLeast(1);
      return { type: 'syncNative', info: { account: a.key(0) } };
    case 18: {
      const owner = r.pubkey();
      a.atLeast(2);
      return { type: 'initializeAccount3', info: { account: a.key(0), mint: a.key(1), owner } };
    }
    case 21: {
      const types = extensionTypes(r.rest());
      a.atLeast(1);
      return { type: 'getAccountDataSize', info: types.length > 0 ? { mint: a.key(0), extensionTypes: types } : { mint: a.key(0) } };
    }
    case 22:
      a.atLeast(1);
      return { type: 'initializeImmutableOwner', info: { account: a.key(0) } };
    case 23: {
      const value = r.u64();
      a.atLeast(1);
      return { type: 'amountToUiAmount', info: { mint: a.key(0), amount: value.toString() } };
    }
    case 24: {
      const uiAmount = strictUtf8(r.rest(), TOKEN);
      a.atLeast(1);
      return { type: 'uiAmountToAmount', info: { mint: a.key(0), uiAmount } };
    }
    default:
      return parseTokenExtension(tag, ix.data, r, a);
  }
}
