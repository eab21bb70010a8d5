/**
 * Mainnet program ids (base58) that both the engine's guard and the simulator need (the simulator installs its
 * product programs at these ids). Where each comes from is noted beside it.
 */
/** Well-known program ids (base58). */
export const PROGRAM_IDS = Object.freeze({
  system: '11111111111111111111111111111111',
  computeBudget: 'ComputeBudget111111111111111111111111111111',
  splToken: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  token2022: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  associatedToken: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  memoV1: 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
  memoV2: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  addressLookupTable: 'AddressLookupTab1e1111111111111111111111111',
  /** Jupiter Aggregator v6 (Metis router), used by /swap and by Ultra's aggregator routes. */
  jupiterV6: 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4',
  /** JupiterZ (RFQ) order engine: `declare_id!` of programs/order-engine in github.com/jup-ag/rfq-webhook-toolkit. */
  jupiterOrderEngine: '61DFfeTKM7trxYcPQCM78bJ794ddZprZpAwAnLiwTpYH',
  /** Jupiter Limit Order v2, behind the Trigger API. */
  jupiterTrigger: 'j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X',
  /** Jupiter DCA, behind the Recurring API's time-based orders (Jupiter's DCA integration guide, "Address"). */
  jupiterRecurring: 'DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M',
  /** Jupiter Lend Earn. */
  jupiterLendEarn: 'jup3YeL8QhtSx1e253b2FDvsMNC87fDrgQZivbrndc9',
  /** Jupiter Send (invites and clawbacks). */
  jupiterSend: 'inv1tEtSwRMtM44tbvJGNiTxMvDfPVnX9StyqXfDfks',
  /** Jupiter Prediction Market program (Helius parsed-program catalog; not yet in Jupiter's own docs). */
  jupiterPrediction: '3ZZuTbwC6aJbvteyVxXUS7gtFYdf7AuXeitx6VyvjvUp',
});
