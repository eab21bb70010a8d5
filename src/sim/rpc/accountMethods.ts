import { PublicKey } from '@solana/web3.js';
import { z } from 'zod';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../catalog.js';
import { encodeAccount, readMint, readTokenAccount, uiTokenAmount } from './accounts.js';
import { invalidParam, method, RpcCode, RpcError, type MethodTable } from './jsonrpc.js';
import { accountEncodingParam, commitmentOnlyParam, configParam, contextSlot, dataSliceParam, pubkeyParam, slotAt, withContext, type RpcEnv } from './params.js';

/** getMultipleAccounts answers at most this many addresses, as a node does. */
const MAX_MULTIPLE_ACCOUNTS = 100;

const readConfig = configParam({});
const commitmentConfig = commitmentOnlyParam;
const accountConfig = configParam({ encoding: accountEncodingParam.optional(), dataSlice: dataSliceParam.optional() });
const tokenFilter = z.union([z.strictObject({ mint: pubkeyParam }), z.strictObject({ programId: pubkeyParam })], {
  error: 'expected {mint} or {programId}',
});

/** Account methods: balances, account data, token accounts and supplies. */
export const accountMethods: MethodTable<RpcEnv> = {
  getBalance: method([['pubkey', pubkeyParam], ['config', readConfig]], ([pubkey, config], { venue }: RpcEnv) =>
    withContext(contextSlot(venue, config), venue.chain.lamports(pubkey)),
  ),

  getAccountInfo: method([['pubkey', pubkeyParam], ['config', accountConfig]], ([pubkey, config], { venue }: RpcEnv) => {
    const slot = contextSlot(venue, config);
    const acc = venue.chain.account(pubkey);
    return withContext(slot, acc ? encodeAccount(venue.chain, acc, config?.encoding ?? 'base64', config?.dataSlice) : null);
  }),

  getMultipleAccounts: method([['pubkeys', z.array(pubkeyParam)], ['config', accountConfig]], ([pubkeys, config], { venue }: RpcEnv) => {
    if (pubkeys.length > MAX_MULTIPLE_ACCOUNTS) {
      throw new RpcError(RpcCode.invalidParams, `Invalid params: Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
    }
    const slot = contextSlot(venue, config);
    return withContext(
      slot,
      pubkeys.map((k) => {
        const acc = venue.chain.account(k);
        return acc ? encodeAccount(venue.chain, acc, config?.encoding ?? 'base64', config?.dataSlice) : null;
      }),
    );
  }),

  getTokenAccountsByOwner: method(
    [['owner', pubkeyParam], ['filter', tokenFilter], ['config', accountConfig]],
    ([owner, filter, config], { venue }: RpcEnv) => {
      const slot = contextSlot(venue, config);
      let program: string | undefined;
      let mint: string | undefined;
      if ('mint' in filter) {
        const m = readMint(venue.chain, filter.mint);
        if (!m) throw invalidParam('could not find mint');
        mint = filter.mint.toBase58();
        program = m.program;
      } else {
        program = filter.programId.toBase58();
        if (program !== TOKEN_PROGRAM && program !== TOKEN_2022_PROGRAM) throw invalidParam('unrecognized Token program id');
      }
      const value = venue.chain
        .tokenAccountsOf(owner.toBase58())
        .filter((a) => a.program === program && (mint === undefined || a.mint === mint))
        .flatMap((a) => {
          const address = new PublicKey(a.address);
          const acc = venue.chain.account(address);
          return acc ? [{ pubkey: a.address, account: encodeAccount(venue.chain, acc, config?.encoding ?? 'base64', config?.dataSlice) }] : [];
        });
      return withContext(slot, value);
    },
  ),

  getTokenAccountBalance: method([['pubkey', pubkeyParam], ['config', commitmentConfig]], ([pubkey, config], { venue }: RpcEnv) => {
    const slot = slotAt(venue, config?.commitment);
    const acc = readTokenAccount(venue.chain, pubkey);
    if (!acc) throw invalidParam('not a Token account');
    return withContext(slot, uiTokenAmount(acc.amount, acc.decimals));
  }),

  getTokenSupply: method([['mint', pubkeyParam], ['config', commitmentConfig]], ([mint, config], { venue }: RpcEnv) => {
    const slot = slotAt(venue, config?.commitment);
    const m = readMint(venue.chain, mint);
    if (!m) throw invalidParam('not a Token mint');
    return withContext(slot, uiTokenAmount(m.supply, m.decimals));
  }),
};
