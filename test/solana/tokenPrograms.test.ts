import { describe, expect, it } from 'vitest';
import { Keypair, PublicKey } from '@solana/web3.js';
import * as splToken from '@solana/spl-token';
import { mintDecimals } from '../../src/solana/guardChanges.js';
import { mintDecimals as mintDecimalsOfToken2022Module } from '../../src/solana/guardToken2022.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, associatedTokenAddress, TOKEN_PROGRAM_ID } from '../../src/solana/tokenPrograms.js';

// src/solana/tokenPrograms.ts stands in for @solana/spl-token where only its ids and the associated token account
// are needed (so that the keeper does not load the package at start-up): every value must be the package's.

describe('token programs without @solana/spl-token', () => {
  it('has the same program ids as @solana/spl-token', () => {
    expect(TOKEN_PROGRAM_ID.equals(splToken.TOKEN_PROGRAM_ID)).toBe(true);
    expect(ASSOCIATED_TOKEN_PROGRAM_ID.equals(splToken.ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true);
  });

  it('derives the associated token account @solana/spl-token derives, for wallets and program addresses', () => {
    const mints = [new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'), new PublicKey('So11111111111111111111111111111111111111112'), Keypair.generate().publicKey];
    const wallets = Array.from({ length: 8 }, () => Keypair.generate().publicKey);
    const programAddresses = wallets.map((w) => PublicKey.findProgramAddressSync([Buffer.from('order'), w.toBuffer()], new PublicKey('j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X'))[0]);
    expect(programAddresses.every((a) => !PublicKey.isOnCurve(a.toBytes()))).toBe(true);
    for (const mint of mints) {
      for (const owner of [...wallets, ...programAddresses]) {
        for (const program of [splToken.TOKEN_PROGRAM_ID, splToken.TOKEN_2022_PROGRAM_ID]) {
          const expected = splToken.getAssociatedTokenAddressSync(mint, owner, true, program, splToken.ASSOCIATED_TOKEN_PROGRAM_ID);
          expect(associatedTokenAddress(mint, owner, program).toBase58()).toBe(expected.toBase58());
          expect(associatedTokenAddress(mint, owner, program, ASSOCIATED_TOKEN_PROGRAM_ID).toBase58()).toBe(expected.toBase58());
        }
        expect(associatedTokenAddress(mint, owner).toBase58()).toBe(splToken.getAssociatedTokenAddressSync(mint, owner, true).toBase58());
      }
    }
  });

  it('reads a mint account\'s decimals as @solana/spl-token unpacks them (and guardToken2022.ts still exports the same function)', () => {
    expect(mintDecimalsOfToken2022Module).toBe(mintDecimals);
    const mint = Keypair.generate().publicKey;
    for (const decimals of [0, 6, 9, 255]) {
      const data = Buffer.alloc(splToken.MINT_SIZE);
      splToken.MintLayout.encode({ mintAuthorityOption: 1, mintAuthority: Keypair.generate().publicKey, supply: 1_000n, decimals, isInitialized: true, freezeAuthorityOption: 0, freezeAuthority: PublicKey.default }, data);
      const unpacked = splToken.unpackMint(mint, { data, owner: splToken.TOKEN_PROGRAM_ID, lamports: 1, executable: false });
      expect(mintDecimals({ lamports: 1n, owner: splToken.TOKEN_PROGRAM_ID.toBase58(), data })).toBe(unpacked.decimals);
      expect(mintDecimals({ lamports: 1n, owner: splToken.TOKEN_2022_PROGRAM_ID.toBase58(), data })).toBe(decimals);
    }
    const uninitialized = Buffer.alloc(splToken.MINT_SIZE);
    expect(mintDecimals({ lamports: 1n, owner: splToken.TOKEN_PROGRAM_ID.toBase58(), data: uninitialized })).toBeUndefined();
    expect(mintDecimals({ lamports: 1n, owner: Keypair.generate().publicKey.toBase58(), data: Buffer.alloc(splToken.MINT_SIZE, 1) })).toBeUndefined();
    expect(mintDecimals(null)).toBeUndefined();
  });
});
