import { describe, expect, it } from 'vitest';
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionMessage, type TransactionInstruction } from '@solana/web3.js';
import { AccountLayout, AccountState, ACCOUNT_SIZE, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { computeWalletChanges, findAuthorityChanges, readTokenAccount, solSpent, type AccountSnapshot } from '../../src/solana/guardChanges.js';
import { decodeMessage } from '../../src/solana/guardDecode.js';

const WALLET = Keypair.generate().publicKey;
const ATTACKER = Keypair.generate().publicKey;
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const WSOL = 'So11111111111111111111111111111111111111112';
const RENT = 2_039_280n;
const SYSTEM = SystemProgram.programId.toBase58();

interface TokenOpts {
  mint?: string;
  owner?: PublicKey;
  amount?: bigint;
  lamports?: bigint;
  delegate?: PublicKey;
  delegatedAmount?: bigint;
  closeAuthority?: PublicKey;
  native?: boolean;
  program?: PublicKey;
  extensionBytes?: number;
}

function tokenAccount(o: TokenOpts = {}): AccountSnapshot {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint: new PublicKey(o.mint ?? USDC),
      owner: o.owner ?? WALLET,
      amount: o.amount ?? 0n,
      delegateOption: o.delegate ? 1 : 0,
      delegate: o.delegate ?? PublicKey.default,
      state: AccountState.Initialized,
      isNativeOption: o.native ? 1 : 0,
      isNative: o.native ? RENT : 0n,
      delegatedAmount: o.delegatedAmount ?? 0n,
      closeAuthorityOption: o.closeAuthority ? 1 : 0,
      closeAuthority: o.closeAuthority ?? PublicKey.default,
    },
    data,
  );
  const full = o.extensionBytes ? Buffer.concat([data, Buffer.from([2]), Buffer.alloc(o.extensionBytes - 1)]) : data;
  const lamports = o.lamports ?? RENT + (o.native ? (o.amount ?? 0n) : 0n);
  return { lamports, owner: (o.program ?? TOKEN_PROGRAM_ID).toBase58(), data: full };
}

function system(lamports: bigint): AccountSnapshot {
  return { lamports, owner: SYSTEM, data: new Uint8Array(0) };
}

function states(entries: Array<[PublicKey | string, AccountSnapshot | null]>): Map<string, AccountSnapshot | null> {
  return new Map(entries.map(([k, v]) => [typeof k === 'string' ? k : k.toBase58(), v]));
}

const ATA = Keypair.generate().publicKey;
const ATA2 = Keypair.generate().publicKey;

describe('computeWalletChanges', () => {
  it('reports a token swap as tokens out, tokens in, and the fee', () => {
    const pre = states([[WALLET, system(1_000_000_000n)], [ATA, tokenAccount({ amount: 10_000_000n })]]);
    const post = states([[WALLET, system(1_050_000_000n - 5_000n)], [ATA, tokenAccount({ amount: 4_000_000n })]]);
    const changes = computeWalletChanges(pre, post, WALLET);
    expect(changes).toEqual({ lamports: 49_995_000n, tokens: [{ mint: USDC, delta: -6_000_000n }] });
    expect(solSpent(changes)).toBe(-49_995_000n);
  });

  it('keeps the rent of a token account the wallet creates as the wallet\'s own', () => {
    const pre = states([[WALLET, system(1_000_000_000n)], [ATA, null]]);
    const post = states([[WALLET, system(1_000_000_000n - RENT - 5_000n)], [ATA, tokenAccount({ amount: 7n })]]);
    expect(computeWalletChanges(pre, post, WALLET)).toEqual({ lamports: -5_000n, tokens: [{ mint: USDC, delta: 7n }] });
  });

  it('counts rent paid into someone else\'s account as spent', () => {
    const pre = states([[WALLET, system(1_000_000_000n)], [ATA2, null]]);
    const post = states([[WALLET, system(1_000_000_000n - RENT)], [ATA2, tokenAccount({ owner: ATTACKER })]]);
    expect(computeWalletChanges(pre, post, WALLET)).toEqual({ lamports: -RENT, tokens: [] });
  });

  it('counts wrapped SOL as wSOL tokens, so wrapping and unwrapping cost nothing but the fee', () => {
    const wrap = computeWalletChanges(
      states([[WALLET, system(3_000_000_000n)], [ATA, null]]),
      states([[WALLET, system(2_000_000_000n - RENT - 5_000n)], [ATA, tokenAccount({ mint: WSOL, native: true, amount: 1_000_000_000n })]]),
      WALLET,
    );
    expect(wrap).toEqual({ lamports: -1_000_005_000n, tokens: [{ mint: WSOL, delta: 1_000_000_000n }] });
    expect(solSpent(wrap)).toBe(5_000n);
    const unwrap = computeWalletChanges(
      states([[WALLET, system(1_000_000_000n)], [ATA, tokenAccount({ mint: WSOL, native: true, amount: 500_000_000n })]]),
      states([[WALLET, system(1_500_000_000n + RENT - 5_000n)], [ATA, null]]),
      WALLET,
    );
    expect(solSpent(unwrap)).toBe(5_000n);
  });

  it('counts an account given to another owner as everything in it leaving', () => {
    const pre = states([[WALLET, system(1_000_000_000n)], [ATA, tokenAccount({ amount: 9n })]]);
    const post = states([[WALLET, system(1_000_000_000n - 5_000n)], [ATA, tokenAccount({ amount: 9n, owner: ATTACKER })]]);
    expect(computeWalletChanges(pre, post, WALLET)).toEqual({ lamports: -5_000n - RENT, tokens: [{ mint: USDC, delta: -9n }] });
  });

  it('ignores token accounts of other owners and reads Token-2022 accounts with extensions', () => {
    const pre = states([
      [ATA, tokenAccount({ owner: ATTACKER, amount: 5n })],
      [ATA2, tokenAccount({ program: TOKEN_2022_PROGRAM_ID, extensionBytes: 12, amount: 100n })],
    ]);
    const post = states([
      [ATA, tokenAccount({ owner: ATTACKER, amount: 0n })],
      [ATA2, tokenAccount({ program: TOKEN_2022_PROGRAM_ID, extensionBytes: 12, amount: 40n })],
    ]);
    expect(computeWalletChanges(pre, post, WALLET)).toEqual({ lamports: 0n, tokens: [{ mint: USDC, delta: -60n }] });
  });
});

describe('readTokenAccount', () => {
  it('rejects what is not a token account', () => {
    expect(readTokenAccount(system(1n))).toBeNull();
    expect(readTokenAccount(null)).toBeNull();
    const mintWithExtensions = tokenAccount({ program: TOKEN_2022_PROGRAM_ID, extensionBytes: 12 });
    mintWithExtensions.data[ACCOUNT_SIZE] = 1;
    expect(readTokenAccount(mintWithExtensions)).toBeNull();
    expect(readTokenAccount({ ...tokenAccount(), data: new Uint8Array(82) })).toBeNull();
  });

  it('reads the fields of an initialised account', () => {
    const fields = readTokenAccount(tokenAccount({ amount: 3n, delegate: ATTACKER, delegatedAmount: 2n, closeAuthority: WALLET }));
    expect(fields).toEqual({ mint: USDC, owner: WALLET.toBase58(), amount: 3n, delegate: ATTACKER.toBase58(), delegatedAmount: 2n, isNative: false, closeAuthority: WALLET.toBase58(), state: 1 });
  });
});

describe('findAuthorityChanges', () => {
  const kinds = (pre: AccountSnapshot | null, post: AccountSnapshot | null) =>
    findAuthorityChanges(states([[ATA, pre]]), states([[ATA, post]]), WALLET).map((c) => c.kind);

  it('flags a delegate set, changed, or allowed more', () => {
    expect(kinds(tokenAccount(), tokenAccount({ delegate: ATTACKER, delegatedAmount: 1n }))).toEqual(['delegate']);
    expect(kinds(tokenAccount({ delegate: WALLET, delegatedAmount: 1n }), tokenAccount({ delegate: ATTACKER, delegatedAmount: 1n }))).toEqual(['delegate']);
    expect(kinds(tokenAccount({ delegate: ATTACKER, delegatedAmount: 1n }), tokenAccount({ delegate: ATTACKER, delegatedAmount: 5n }))).toEqual(['delegate']);
  });

  it('does not flag a revoked or spent-down delegate', () => {
    expect(kinds(tokenAccount({ delegate: ATTACKER, delegatedAmount: 5n }), tokenAccount())).toEqual([]);
    expect(kinds(tokenAccount({ delegate: ATTACKER, delegatedAmount: 5n }), tokenAccount({ delegate: ATTACKER, delegatedAmount: 2n }))).toEqual([]);
  });

  it('flags a close authority given away, but not one kept by the wallet', () => {
    expect(kinds(tokenAccount(), tokenAccount({ closeAuthority: ATTACKER }))).toEqual(['close-authority']);
    expect(kinds(tokenAccount(), tokenAccount({ closeAuthority: WALLET }))).toEqual([]);
  });

  it('flags a new owner, and an account the wallet receives with a delegate already on it', () => {
    expect(kinds(tokenAccount(), tokenAccount({ owner: ATTACKER }))).toEqual(['owner']);
    expect(kinds(tokenAccount({ owner: ATTACKER, delegate: ATTACKER }), tokenAccount({ delegate: ATTACKER }))).toEqual(['delegate']);
    expect(kinds(null, tokenAccount())).toEqual([]);
  });

  it('flags the wallet assigned to another program, given data or made executable; lamports alone may change', () => {
    const changes = findAuthorityChanges(states([[WALLET, system(5n)]]), states([[WALLET, { ...system(5n), owner: ATTACKER.toBase58() }]]), WALLET);
    expect(changes).toEqual([{ account: WALLET.toBase58(), mint: null, kind: 'wallet-owner', from: SYSTEM, to: ATTACKER.toBase58() }]);
    const walletKinds = (after: AccountSnapshot) => findAuthorityChanges(states([[WALLET, system(5n)]]), states([[WALLET, after]]), WALLET).map((c) => c.kind);
    expect(walletKinds({ ...system(5n), data: new Uint8Array(8) })).toEqual(['wallet-data']);
    expect(walletKinds({ ...system(5n), executable: true })).toEqual(['wallet-executable']);
    expect(walletKinds(system(3n))).toEqual([]);
  });

  it('flags a wallet token account frozen', () => {
    const frozen = tokenAccount();
    frozen.data[108] = 2;
    expect(kinds(tokenAccount(), frozen)).toEqual(['state']);
  });
});

describe('decodeMessage', () => {
  const compile = (instructions: TransactionInstruction[]) =>
    new TransactionMessage({ payerKey: WALLET, recentBlockhash: PublicKey.default.toBase58(), instructions }).compileToV0Message();
  const transfer = SystemProgram.transfer({ fromPubkey: WALLET, toPubkey: ATTACKER, lamports: 1 });

  it('charges the base fee per signature plus the priority fee at the compute-unit limit', () => {
    const d = decodeMessage(compile([ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 10_000 }), transfer]), []);
    expect(d.feeLamports).toBe(5_000n + 3_000n);
    expect(d.programs).toEqual([ComputeBudgetProgram.programId.toBase58(), SYSTEM]);
    expect(d.writable.map(String).sort()).toEqual([WALLET.toBase58(), ATTACKER.toBase58()].sort());
    expect(d.durableNonce).toBe(false);
  });

  it('assumes 200k units per instruction when no limit is set', () => {
    const d = decodeMessage(compile([ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }), transfer, transfer]), []);
    expect(d.feeLamports).toBe(5_000n + 400_000n);
  });

  it('spots a durable-nonce transaction', () => {
    const d = decodeMessage(compile([SystemProgram.nonceAdvance({ noncePubkey: ATA, authorizedPubkey: WALLET }), transfer]), []);
    expect(d.durableNonce).toBe(true);
  });
});
