// What the corpus's captured bytes say about who has signed when the API hands a transaction over, and so how the
// keeper sends it (src/execution/submit.ts): a transaction whose fee payer's signature is already in place has a
// known id when the wallet signs and goes out by RPC like any other; one whose fee payer signs at the venue (an RFQ
// fill) takes the sponsored path, which finds its id afterwards. Gasless prediction orders are of the first kind.
import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { VersionedTransaction } from '@solana/web3.js';
import { awaitsFeePayer, isFeePayerSignature, transactionId } from '../../src/execution/sponsored.js';
import { loadRecorded } from '../helpers/corpus.js';

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const GAS_PAYER = '748XjHxBdkWo4rLwzMXuYieUejv3R8X2dGPys7VGDkAj';
const AUTHORITY_0917 = '5uFXJogUEqBTsVT8AcfuWbC9ZFM1tSzTFJ3eKVeB14yi';
const AUTHORITY_0928 = 'AJooF3xRkSx1PUC5Y9dNZHy9LMHcx5xKhPxj4iW4jepf';

/** Each required signer and its slot: a valid signature over the message, an invalid one, or empty. */
function slots(tx: VersionedTransaction): Record<string, 'valid' | 'invalid' | 'empty'> {
  const message = tx.message.serialize();
  const n = tx.message.header.numRequiredSignatures;
  return Object.fromEntries(tx.message.staticAccountKeys.slice(0, n).map((key, i) => {
    const sig = tx.signatures[i]!;
    if (sig.every((b) => b === 0)) return [key.toBase58(), 'empty'];
    const pub = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key.toBuffer()]), format: 'der', type: 'spki' });
    return [key.toBase58(), verify(null, message, pub, sig) ? 'valid' : 'invalid'];
  }));
}

describe('the signatures already in the captured transactions', () => {
  it('gasless prediction orders come signed by Jupiter\'s gas payer (the fee payer) and the authority: the id is known, the wallet signs its own slot, RPC sends them', () => {
    for (const id of ['prediction/create-order/live-buy-no-gasless-routed', 'prediction/close-position/live-sell-no-gasless']) {
      const r = loadRecorded(id);
      expect(slots(r.tx), id).toEqual({ [GAS_PAYER]: 'valid', [r.wallet.toBase58()]: 'empty', [AUTHORITY_0928]: 'valid' });
      expect(awaitsFeePayer(r.tx)).toBe(false);
      expect(isFeePayerSignature(r.tx, transactionId(r.tx))).toBe(true);
    }
  });

  it('a prediction order the wallet pays for comes signed by the authority alone: the wallet is the fee payer, its own signature the id', () => {
    const r = loadRecorded('prediction/create-order/live-buy-yes-usdc-routed');
    expect(slots(r.tx)).toEqual({ [r.wallet.toBase58()]: 'empty', [AUTHORITY_0917]: 'valid' });
    expect(r.tx.message.staticAccountKeys[0]!.equals(r.wallet)).toBe(true);
  });

  it('a JupiterZ fill comes with its market maker\'s (the fee payer\'s) slot empty: it signs at execute, and the keeper finds the id afterwards', () => {
    const r = loadRecorded('ultra/rfq/docs-jupiterz-usdc-to-sol');
    const maker = r.tx.message.staticAccountKeys[0]!.toBase58();
    expect(slots(r.tx)).toEqual({ [maker]: 'empty', [r.wallet.toBase58()]: 'empty' });
    expect(awaitsFeePayer(r.tx)).toBe(true);
  });
});
