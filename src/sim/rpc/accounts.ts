import bs58 from 'bs58';
import type { AccountInfo, PublicKey } from '@solana/web3.js';
import { AccountLayout, AccountState, ACCOUNT_SIZE, MintLayout, MINT_SIZE } from '@solana/spl-token';
import { formatUnits, U64_MAX } from '../../lib/amounts.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../catalog.js';
import type { SimChain } from '../chain/chain.js';
import { textOf } from '../chain/keys.js';
import { RpcCode, RpcError } from './jsonrpc.js';
import type { AccountEncoding, DataSlice } from './params.js';

/** Larger account data cannot be asked for in base58 (Agave's limit). */
const MAX_BASE58_BYTES = 128;
/** rentEpoch of a rent-exempt account: u64::MAX, as nodes report it. */
const RENT_EXEMPT_EPOCH = Number(U64_MAX);

/** A token amount as RPC reports it: base units as a string, and the human amount. */
export interface UiTokenAmount {
  amount: string;
  decimals: number;
  /** null when 10^decimals overflows a u64, as in Agave. */
  uiAmount: number | null;
  uiAmountString: string;
}

/** Parsed account data of the jsonParsed encoding. */
export interface ParsedAccountData {
  program: 'spl-token' | 'spl-token-2022';
  parsed: { type: 'account' | 'mint'; info: Record<string, unknown> };
  space: number;
}

/** An account in an RPC answer. */
export interface UiAccount {
  data: [string, 'base64' | 'base58'] | ParsedAccountData;
  executable: boolean;
  lamports: number;
  owner: string;
  rentEpoch: number;
  space: number;
}

/** Above this many decimals 10^decimals overflows a u64 and Agave reports no uiAmount. */
const MAX_UI_AMOUNT_DECIMALS = 19;

/**
 * A token amount in base units with its decimals, as RPC answers carry it (Agave's token_amount_to_ui_amount):
 * uiAmount is the u64 amount as f64 divided by 10^decimals as f64, uiAmountString the exact decimal, trimmed.
 */
export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const uiAmount = decimals <= MAX_UI_AMOUNT_DECIMALS ? Number(amount) / 10 ** decimals : null;
  return { amount: amount.toString(), decimals, uiAmount, uiAmountString: formatUnits(amount, decimals) };
}

/**
 * Encodes an account for an answer. jsonParsed parses SPL Token and Token-2022 mints and accounts and falls back to
 * base64 for anything else, as a node does. A data slice applies to the binary encodings only.
 */
export function encodeAccount(chain: SimChain, account: AccountInfo<Uint8Array>, encoding: AccountEncoding, dataSlice?: DataSlice): UiAccount {
  const base = {
    executable: account.executable,
    lamports: account.lamports,
    owner: textOf(account.owner),
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: account.data.length,
  };
  if (encoding === 'jsonParsed') {
    const parsed = parseTokenData(chain, account.owner, account.data);
    if (parsed) return { ...base, data: parsed };
  }
  const bytes = dataSlice ? account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length) : account.data;
  if (encoding === 'base58') {
    if (bytes.length > MAX_BASE58_BYTES) {
      throw new RpcError(RpcCode.invalidRequest, `Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`);
    }
    return { ...base, data: [bs58.encode(bytes), 'base58'] };
  }
  return { ...base, data: [Buffer.from(bytes).toString('base64'), 'base64'] };
}

/** The name RPC gives a token program, or undefined for any other owner. */
export function tokenProgramName(owner: PublicKey): ParsedAccountData['program'] | undefined {
  const o = textOf(owner);
  return o === TOKEN_PROGRAM ? 'spl-token' : o === TOKEN_2022_PROGRAM ? 'spl-token-2022' : undefined;
}

/** What kind of token-program account some data is (Token-2022 accounts with extensions carry a type byte). */
export function tokenAccountKind(owner: PublicKey, data: Uint8Array): 'mint' | 'account' | undefined {
  const program = tokenProgramName(owner);
  if (!program) return undefined;
  if (data.length === MINT_SIZE) return 'mint';
  if (data.length === ACCOUNT_SIZE) return 'account';
  if (program === 'spl-token-2022' && data.length > ACCOUNT_SIZE) return data[ACCOUNT_SIZE] === 1 ? 'mint' : data[ACCOUNT_SIZE] === 2 ? 'account' : undefined;
  return undefined;
}

/** Decimals and supply of the mint at an address, or undefined when it is not a mint. */
export function readMint(chain: SimChain, mint: PublicKey): { decimals: number; supply: bigint; program: string } | undefined {
  const acc = chain.account(mint);
  if (!acc || tokenAccountKind(acc.owner, acc.data) !== 'mint') return undefined;
  const m = MintLayout.decode(Buffer.from(acc.data).subarray(0, MINT_SIZE));
  return { decimals: m.decimals, supply: m.supply, program: acc.owner.toBase58() };
}

function parseTokenData(chain: SimChain, owner: PublicKey, data: Uint8Array): ParsedAccountData | undefined {
  const program = tokenProgramName(owner);
  const kind = tokenAccountKind(owner, data);
  if (!program || !kind) return undefined;
  const bytes = Buffer.from(data);
  if (kind === 'mint') {
    const m = MintLayout.decode(bytes.subarray(0, MINT_SIZE));
    const info = {
      decimals: m.decimals,
      freezeAuthority: m.freezeAuthorityOption ? m.freezeAuthority.toBase58() : null,
      isInitialized: m.isInitialized,
      mintAuthority: m.mintAuthorityOption ? m.mintAuthority.toBase58() : null,
      supply: m.supply.toString(),
    };
    return { program, parsed: { type: 'mint', info }, space: data.length };
  }
  const a = AccountLayout.decode(bytes.subarray(0, ACCOUNT_SIZE));
  const mint = readMint(chain, a.mint);
  if (!mint) return undefined;
  const info: Record<string, unknown> = {
    isNative: a.isNativeOption === 1,
    mint: a.mint.toBase58(),
    owner: a.owner.toBase58(),
    state: a.state === AccountState.Frozen ? 'frozen' : a.state === AccountState.Initialized ? 'initialized' : 'uninitialized',
    tokenAmount: uiTokenAmount(a.amount, mint.decimals),
  };
  if (a.delegateOption) {
    info.delegate = a.delegate.toBase58();
    info.delegatedAmount = uiTokenAmount(a.delegatedAmount, mint.decimals);
  }
  if (a.closeAuthorityOption) info.closeAuthority = a.closeAuthority.toBase58();
  if (a.isNativeOption) info.rentExemptReserve = uiTokenAmount(a.isNative, mint.decimals);
  return { program, parsed: { type: 'account', info }, space: data.length };
}

/** Decoded token account at an address with its mint's decimals, or undefined when it is not a token account. */
export function readTokenAccount(chain: SimChain, address: PublicKey): { mint: string; owner: string; amount: bigint; decimals: number } | undefined {
  const acc = chain.account(address);
  if (!acc || tokenAccountKind(acc.owner, acc.data) !== 'account') return undefined;
  const a = AccountLayout.decode(Buffer.from(acc.data).subarray(0, ACCOUNT_SIZE));
  const mint = readMint(chain, a.mint);
  if (!mint) return undefined;
  return { mint: a.mint.toBase58(), owner: a.owner.toBase58(), amount: a.amount, decimals: mint.decimals };
}
