import { describe, expect, it } from 'vitest';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { ACCOUNT_SIZE, AccountLayout, AccountState, createMintToCheckedInstruction, createTransferCheckedInstruction, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { rentExemptLamports } from '../../src/solana/guard.js';
import type { AccountSnapshot } from '../../src/solana/guardChanges.js';
import { checkFlows, type FlowPolicy, type TracedEvent } from '../../src/solana/guardFlows.js';
import type { ProductTerms, SpendRule } from '../../src/solana/guardTypes.js';
import { flowEventsOf, type FlowEvent, type GuardInstruction } from '../../src/solana/guardInstructions.js';
import { PROGRAM_IDS, TIP_ACCOUNTS } from '../../src/solana/programs.js';

const WALLET = Keypair.generate().publicKey.toBase58();
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const WSOL = 'So11111111111111111111111111111111111111112';
const TRIGGER = PROGRAM_IDS.jupiterTrigger;
const WALLET_USDC = Keypair.generate().publicKey.toBase58();
const STRANGER = Keypair.generate().publicKey.toBase58();
const STRANGER_USDC = Keypair.generate().publicKey.toBase58();
/** An off-curve address, as a program derives one. */
const ORDER = PublicKey.findProgramAddressSync([Buffer.from('order'), new PublicKey(WALLET).toBuffer()], new PublicKey(TRIGGER))[0].toBase58();
const ESCROW_USDC = Keypair.generate().publicKey.toBase58();

function token(mint: string, owner: string, amount = 0n): AccountSnapshot {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode({ mint: new PublicKey(mint), owner: new PublicKey(owner), amount, delegateOption: 0, delegate: PublicKey.default, state: AccountState.Initialized, isNativeOption: 0, isNative: 0n, delegatedAmount: 0n, closeAuthorityOption: 0, closeAuthority: PublicKey.default }, data);
  return { lamports: 2_039_280n, owner: TOKEN_PROGRAM_ID.toBase58(), data };
}

function states(entries: Array<[string, AccountSnapshot | null]>): Map<string, AccountSnapshot | null> {
  return new Map(entries);
}

const BASE = states([
  [WALLET, { lamports: 1_000_000_000n, owner: PROGRAM_IDS.system, data: new Uint8Array(0) }],
  [WALLET_USDC, token(USDC, WALLET, 50_000_000n)],
  [STRANGER_USDC, token(USDC, STRANGER)],
  [ESCROW_USDC, token(USDC, ORDER)],
  [ORDER, { lamports: 3_000_000n, owner: TRIGGER, data: Uint8Array.from([7, 1, 2, 3]) }],
]);

const JUP6 = PROGRAM_IDS.jupiterV6;
const MAKER = Keypair.generate().publicKey.toBase58();

function policy(spend: SpendRule, extra: Partial<FlowPolicy> = {}): FlowPolicy {
  return { wallet: WALLET, spend, tipAccounts: TIP_ACCOUNTS, counterparties: new Set([MAKER]), swapPrograms: new Set([JUP6]), mayUnwrapSol: false, rentExempt: rentExemptLamports, tokenAccountSpace: (mint) => (mint === USDC ? 165n : undefined), ...extra };
}

/** What a limit order's initialize_order names: its escrow, and the order account and escrow the wallet may pay rent for. */
const ORDER_TERMS: ProductTerms = {
  escrows: [ESCROW_USDC],
  creates: [
    { address: ORDER, owner: TRIGGER, space: { min: 372n, max: 372n }, what: 'order account' },
    { address: ESCROW_USDC, owner: PROGRAM_IDS.splToken, space: { tokenAccountOf: USDC }, what: 'order\'s escrow' },
  ],
  payers: [],
  payouts: [],
};

/** Events as they happen under a top-level instruction of `top` (by default inside Jupiter's aggregator route). */
const traced = (events: FlowEvent[], top: string = JUP6): TracedEvent[] => events.map((e) => ({ ...e, top }));
const flowsOf = (events: FlowEvent[], pre: Map<string, AccountSnapshot | null>, post: Map<string, AccountSnapshot | null>, p: FlowPolicy) => checkFlows(traced(events), pre, post, p);
const rulesOf = (events: FlowEvent[], p: FlowPolicy, post = BASE, top: string = JUP6) => checkFlows(traced(events, top), BASE, post, p).violations.map((v) => v.rule).sort();
const pay = (to: string, amount: bigint): FlowEvent => ({ kind: 'tokens', from: WALLET_USDC, to, amount });

describe('following what leaves the wallet', () => {
  describe('when the intent is a swap', () => {
    const swap = policy({ kind: 'counterparty', mint: USDC, max: 10_000_000n });

    it('lets the input go to whichever accounts the route pays, within the amount', () => {
      expect(rulesOf([pay(STRANGER_USDC, 6_000_000n), pay(ESCROW_USDC, 4_000_000n)], swap)).toEqual([]);
      expect(rulesOf([pay(STRANGER_USDC, 6_000_000n), pay(ESCROW_USDC, 4_000_001n)], swap)).toEqual(['token-outflow']);
    });

    it('pays only the counterparty: the aggregator\'s own CPIs, or the venue\'s declared market maker; not a stranger the venue adds', () => {
      const makerUsdc = Keypair.generate().publicKey.toBase58();
      const withMaker = states([...BASE, [makerUsdc, token(USDC, MAKER)]]);
      const direct = (to: string, amount: bigint) => checkFlows(traced([pay(to, amount)], PROGRAM_IDS.splToken), withMaker, withMaker, swap).violations.map((v) => v.rule);
      expect(direct(makerUsdc, 10_000_000n)).toEqual([]);
      expect(direct(STRANGER_USDC, 1n)).toEqual(['destination']);
      // The split attack: the total and the payout are right, but one unit of the payment goes to a stranger.
      const split = checkFlows([...traced([pay(makerUsdc, 9_999_999n)], PROGRAM_IDS.splToken), ...traced([pay(STRANGER_USDC, 1n)], PROGRAM_IDS.splToken)], withMaker, withMaker, swap);
      expect(split.violations.map((v) => v.rule)).toEqual(['destination']);
    });

    it('refuses one lamport of SOL to anyone when SOL is not the input, and lets a tip to Jito through', () => {
      expect(rulesOf([{ kind: 'lamports', from: WALLET, to: STRANGER, amount: 1n }], swap)).toEqual(['destination']);
      const summary = flowsOf([{ kind: 'lamports', from: WALLET, to: [...TIP_ACCOUNTS][3]!, amount: 5_000n }], BASE, BASE, swap);
      expect(summary.violations).toEqual([]);
      expect(summary.tipsLamports).toBe(5_000n);
    });

    it('treats rent of an account that ends up the wallet\'s, and a wrap into its own wSOL account, as staying home', () => {
      const ata = Keypair.generate().publicKey.toBase58();
      const events: FlowEvent[] = [
        { kind: 'create', from: WALLET, account: ata, amount: 2_039_280n, space: 165n, owner: TOKEN_PROGRAM_ID.toBase58() },
        { kind: 'init', account: ata, mint: WSOL, owner: WALLET },
        { kind: 'lamports', from: WALLET, to: ata, amount: 7_000_000n },
        { kind: 'close', account: ata, destination: WALLET },
      ];
      expect(rulesOf(events, swap)).toEqual([]);
    });

    it('refuses rent paid for an account a stranger owns afterwards (an account creation the intent does not name)', () => {
      const theirs = Keypair.generate().publicKey.toBase58();
      const events: FlowEvent[] = [
        { kind: 'create', from: WALLET, account: theirs, amount: 2_039_280n, space: 165n, owner: TOKEN_PROGRAM_ID.toBase58() },
        { kind: 'init', account: theirs, mint: USDC, owner: STRANGER },
      ];
      expect(rulesOf(events, swap)).toEqual(['created-account']);
    });

    it('refuses a close of the wallet\'s own account unless it is a temporary one or an unwrap the intent allows', () => {
      const wsol = Keypair.generate().publicKey.toBase58();
      const withWsol = states([...BASE, [wsol, { ...token(WSOL, WALLET, 1_000n), data: nativeData(WALLET, 1_000n) }]]);
      const close: FlowEvent[] = [{ kind: 'close', account: wsol, destination: WALLET }];
      expect(flowsOf(close, withWsol, withWsol, swap).violations.map((v) => v.rule)).toEqual(['close-account']);
      expect(flowsOf(close, withWsol, withWsol, { ...swap, mayUnwrapSol: true }).violations).toEqual([]);
      expect(flowsOf([{ kind: 'close', account: wsol, destination: STRANGER }], withWsol, withWsol, { ...swap, mayUnwrapSol: true }).violations.map((v) => v.rule)).toEqual(['close-account']);
    });

    it('refuses a burn and an instruction it cannot read that touches the wallet', () => {
      expect(rulesOf([{ kind: 'burn', account: WALLET_USDC, amount: 1n }], swap)).toEqual(['destination']);
      expect(rulesOf([{ kind: 'unknown', program: PROGRAM_IDS.token2022, what: 'token instruction 26', accounts: [WALLET_USDC] }], swap)).toEqual(['unknown-instruction']);
      expect(rulesOf([{ kind: 'unknown', program: PROGRAM_IDS.splToken, what: 'x', accounts: [STRANGER_USDC] }], swap)).toEqual([]);
    });
  });

  describe('when the intent is a product order into an escrow', () => {
    const escrow = policy({ kind: 'escrow', mint: USDC, amount: 5_000_000n }, { product: ORDER_TERMS });
    /** Another order of the same program (the attacker's own), with an escrow of its own: an account of the right program. */
    const theirOrder = PublicKey.findProgramAddressSync([Buffer.from('order'), new PublicKey(STRANGER).toBuffer()], new PublicKey(TRIGGER))[0].toBase58();
    const theirEscrow = Keypair.generate().publicKey.toBase58();
    const withTheirs = states([...BASE, [theirOrder, { lamports: 3_000_000n, owner: TRIGGER, data: Uint8Array.from([7, 1, 2, 3]) }], [theirEscrow, token(USDC, theirOrder)]]);
    const create = (account: string, amount: bigint, space: bigint, owner: string = TRIGGER): FlowEvent => ({ kind: 'create', from: WALLET, account, amount, space, owner });

    it('accepts exactly the amount into the escrow the instruction names', () => {
      expect(rulesOf([pay(ESCROW_USDC, 5_000_000n)], escrow)).toEqual([]);
    });

    it('refuses another amount, and the same amount anywhere else', () => {
      expect(rulesOf([pay(ESCROW_USDC, 4_999_999n)], escrow)).toEqual(['escrow-amount']);
      expect(rulesOf([pay(STRANGER_USDC, 5_000_000n)], escrow)).toEqual(['destination', 'escrow-amount']);
    });

    it('refuses the deposit into another escrow of the same program (another user\'s order), though its authority is the program\'s', () => {
      expect(checkFlows(traced([pay(theirEscrow, 5_000_000n)], TRIGGER), withTheirs, withTheirs, escrow).violations.map((v) => v.rule).sort()).toEqual(['destination', 'escrow-amount']);
      // Split between the two, the right total: the stranger's part is refused.
      const split = checkFlows(traced([pay(ESCROW_USDC, 4_000_000n), pay(theirEscrow, 1_000_000n)], TRIGGER), withTheirs, withTheirs, escrow);
      expect(split.violations.map((v) => v.rule).sort()).toEqual(['destination', 'escrow-amount']);
    });

    it('refuses a deposit into an escrow when the instruction names none (no product terms)', () => {
      expect(rulesOf([pay(ESCROW_USDC, 5_000_000n)], policy({ kind: 'escrow', mint: USDC, amount: 5_000_000n }))).toEqual(['destination', 'escrow-amount']);
    });

    it('lets the wallet pay the exact rent of the accounts the instruction names, and nothing more', () => {
      const summary = flowsOf([create(ORDER, rentExemptLamports(372n), 372n), create(ESCROW_USDC, rentExemptLamports(165n), 165n, PROGRAM_IDS.splToken), pay(ESCROW_USDC, 5_000_000n)], BASE, BASE, escrow);
      expect(summary.violations).toEqual([]);
      expect(summary.createdRentLamports).toBe(rentExemptLamports(372n) + rentExemptLamports(165n));
      expect(rulesOf([create(ORDER, rentExemptLamports(372n) + 1n, 372n), pay(ESCROW_USDC, 5_000_000n)], escrow)).toEqual(['created-account']);
    });

    it('refuses an account the instruction does not name, though the program owns it and its rent is exact (a create-with-seed)', () => {
      const seeded = Keypair.generate().publicKey.toBase58();
      expect(rulesOf([create(seeded, rentExemptLamports(372n), 372n), pay(ESCROW_USDC, 5_000_000n)], escrow)).toEqual(['created-account']);
    });

    it('refuses a named account of another size or owner, or created twice', () => {
      expect(rulesOf([create(ORDER, rentExemptLamports(10_000n), 10_000n), pay(ESCROW_USDC, 5_000_000n)], escrow)).toEqual(['created-account']);
      expect(rulesOf([create(ORDER, rentExemptLamports(372n), 372n, STRANGER), pay(ESCROW_USDC, 5_000_000n)], escrow)).toEqual(['created-account']);
      expect(rulesOf([create(ESCROW_USDC, rentExemptLamports(170n), 170n, PROGRAM_IDS.splToken), pay(ESCROW_USDC, 5_000_000n)], escrow)).toEqual(['created-account']);
      expect(rulesOf([create(ORDER, rentExemptLamports(372n), 372n), create(ORDER, rentExemptLamports(372n), 372n), pay(ESCROW_USDC, 5_000_000n)], escrow)).toEqual(['created-account']);
    });
  });

  describe('when a deposit mints the wallet shares', () => {
    const SHARES = Keypair.generate().publicKey.toBase58();
    const WALLET_SHARES = Keypair.generate().publicKey.toBase58();
    const withShares = states([...BASE, [WALLET_SHARES, token(SHARES, WALLET)]]);
    const deposit = policy({ kind: 'escrow', mint: USDC, amount: 5_000_000n }, { product: { ...ORDER_TERMS, ownMints: [SHARES] } });
    const mint = (to: string, amount: bigint): FlowEvent => ({ kind: 'mint', mint: SHARES, to, amount });

    it('lets the share token be minted to the wallet\'s own account, and refuses a mint of it to anyone else (a dilution of the wallet\'s shares)', () => {
      const rulesWith = (events: FlowEvent[]) => checkFlows(traced(events, TRIGGER), withShares, withShares, deposit).violations.map((v) => v.rule);
      expect(rulesWith([pay(ESCROW_USDC, 5_000_000n), mint(WALLET_SHARES, 4_900_000n)])).toEqual([]);
      expect(rulesWith([pay(ESCROW_USDC, 5_000_000n), mint(WALLET_SHARES, 4_900_000n), mint(STRANGER_USDC, 1_000_000_000n)])).toEqual(['payout-destination']);
      // Another mint's tokens are not the deposit's business.
      expect(rulesWith([pay(ESCROW_USDC, 5_000_000n), { kind: 'mint', mint: USDC, to: STRANGER_USDC, amount: 1n }])).toEqual([]);
    });
  });

  describe('when a payout comes out of an escrow (a cancel, a claim, a withdrawal)', () => {
    const payout = policy({ kind: 'nothing' }, { product: { escrows: [], creates: [], payers: [ESCROW_USDC], payouts: [] } });
    const from = (to: string, amount: bigint): FlowEvent => ({ kind: 'tokens', from: ESCROW_USDC, to, amount });

    it('lets what leaves the escrow go to the wallet\'s own account, or to the venue\'s declared co-signer that forwards it', () => {
      expect(rulesOf([from(WALLET_USDC, 5_000_000n)], payout)).toEqual([]);
      const makerUsdc = Keypair.generate().publicKey.toBase58();
      const withMaker = states([...BASE, [makerUsdc, token(USDC, MAKER)]]);
      expect(checkFlows(traced([from(makerUsdc, 5_000_000n)], TRIGGER), withMaker, withMaker, payout).violations).toEqual([]);
    });

    it('refuses any part of it paid to a stranger, or the escrow closed to one', () => {
      expect(rulesOf([from(WALLET_USDC, 2_500_000n), from(STRANGER_USDC, 2_500_000n)], payout)).toEqual(['payout-destination']);
      expect(rulesOf([{ kind: 'close', account: ESCROW_USDC, destination: STRANGER }], payout)).toEqual(['payout-destination']);
      // Without the instruction's terms, nothing is a payer: the same event moves nothing of the wallet's.
      expect(rulesOf([from(STRANGER_USDC, 2_500_000n)], policy({ kind: 'nothing' }))).toEqual([]);
    });
  });

  describe('when nothing may leave (a cancel, a claim)', () => {
    it('refuses any outflow, and an authority handed out', () => {
      const none = policy({ kind: 'nothing' });
      expect(rulesOf([pay(ESCROW_USDC, 1n)], none)).toEqual(['destination']);
      expect(rulesOf([{ kind: 'token-change', account: WALLET_USDC, what: 'approve' }], none)).toEqual(['token-account']);
      expect(rulesOf([{ kind: 'system-change', account: WALLET, what: 'allocate' }], none)).toEqual(['wallet-account']);
    });
  });
});

describe('reading system and token instructions', () => {
  it('reads a raw transfer and the same transfer as the RPC node parses it', () => {
    const ix = SystemProgram.transfer({ fromPubkey: new PublicKey(WALLET), toPubkey: new PublicKey(STRANGER), lamports: 42 });
    const raw: GuardInstruction = { form: 'raw', programId: ix.programId.toBase58(), accounts: ix.keys.map((k) => k.pubkey.toBase58()), data: ix.data };
    const parsed: GuardInstruction = { form: 'parsed', programId: PROGRAM_IDS.system, program: 'system', type: 'transfer', info: { source: WALLET, destination: STRANGER, lamports: 42 } };
    const expected = [{ kind: 'lamports', from: WALLET, to: STRANGER, amount: 42n }];
    expect(flowEventsOf(raw)).toEqual(expected);
    expect(flowEventsOf(parsed)).toEqual(expected);
  });

  it('reads a raw and a parsed transferChecked', () => {
    const ix = createTransferCheckedInstruction(new PublicKey(WALLET_USDC), new PublicKey(USDC), new PublicKey(STRANGER_USDC), new PublicKey(WALLET), 9n, 6);
    const raw: GuardInstruction = { form: 'raw', programId: ix.programId.toBase58(), accounts: ix.keys.map((k) => k.pubkey.toBase58()), data: ix.data };
    const parsed: GuardInstruction = { form: 'parsed', programId: PROGRAM_IDS.splToken, program: 'spl-token', type: 'transferChecked', info: { source: WALLET_USDC, mint: USDC, destination: STRANGER_USDC, authority: WALLET, tokenAmount: { amount: '9', decimals: 6, uiAmount: 0.000009, uiAmountString: '0.000009' } } };
    const expected = [{ kind: 'tokens', from: WALLET_USDC, to: STRANGER_USDC, amount: 9n }];
    expect(flowEventsOf(raw)).toEqual(expected);
    expect(flowEventsOf(parsed)).toEqual(expected);
  });

  it('reads a raw and a parsed mintToChecked as new tokens into an account', () => {
    const ix = createMintToCheckedInstruction(new PublicKey(USDC), new PublicKey(STRANGER_USDC), new PublicKey(WALLET), 7n, 6);
    const raw: GuardInstruction = { form: 'raw', programId: ix.programId.toBase58(), accounts: ix.keys.map((k) => k.pubkey.toBase58()), data: ix.data };
    const parsed: GuardInstruction = { form: 'parsed', programId: PROGRAM_IDS.splToken, program: 'spl-token', type: 'mintToChecked', info: { mint: USDC, account: STRANGER_USDC, mintAuthority: WALLET, tokenAmount: { amount: '7', decimals: 6, uiAmount: 0.000007, uiAmountString: '0.000007' } } };
    const expected = [{ kind: 'mint', mint: USDC, to: STRANGER_USDC, amount: 7n }];
    expect(flowEventsOf(raw)).toEqual(expected);
    expect(flowEventsOf(parsed)).toEqual(expected);
  });

  it('marks what it cannot read as unknown, with every address it names', () => {
    const parsed: GuardInstruction = { form: 'parsed', programId: PROGRAM_IDS.token2022, program: 'spl-token-2022', type: 'confidentialTransfer', info: { source: WALLET_USDC, destination: STRANGER_USDC } };
    expect(flowEventsOf(parsed)).toEqual([{ kind: 'unknown', program: PROGRAM_IDS.token2022, what: 'spl-token-2022 confidentialTransfer', accounts: [WALLET_USDC, STRANGER_USDC] }]);
    const memo: GuardInstruction = { form: 'raw', programId: PROGRAM_IDS.memoV2, accounts: [], data: Buffer.from('x') };
    expect(flowEventsOf(memo)).toEqual([]);
  });
});

function nativeData(owner: string, amount: bigint): Uint8Array {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode({ mint: new PublicKey(WSOL), owner: new PublicKey(owner), amount, delegateOption: 0, delegate: PublicKey.default, state: AccountState.Initialized, isNativeOption: 1, isNative: 2_039_280n, delegatedAmount: 0n, closeAuthorityOption: 0, closeAuthority: PublicKey.default }, data);
  return data;
}
