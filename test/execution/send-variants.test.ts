// Issue 21, item 4 (send): native-SOL invites. The simulator crafts SOL sends with the invite program's native-SOL
// instructions when asked (SendDesk.useNativeSol): `initialize` escrows the lamports in the invite account itself,
// `clawback` returns them. The real executor sends and claws back SOL that way; the venue's tampered twins (another
// amount, lamports to a stranger, an invite that is not the keeper's, a native initialize for a token, a clawback
// paid short or elsewhere, or of another invite) are refused with their rule, nothing signed and nothing moved.
import { beforeAll, describe, expect, it } from 'vitest';
import { Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { inviteCodeFor } from '../../src/execution/sendInvite.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import { rawInstruction } from '../../src/jupiter/programs/instruction.js';
import { decodeInviteInfo, decodeSendInstruction, initializeInstruction, INVITE_INFO_SIZE, invitePda, SEND_PROGRAM, type SendInstruction } from '../../src/jupiter/programs/send.js';
import { deriveInvitePda, inviteKeypairFromCode } from '../../src/jupiter/send/inviteCode.js';
import type { Intent } from '../../src/sdk/intents.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { executorFor, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';
import { balances, control, SOL, USDC } from '../helpers/sim.js';

type Tamper = (ixs: TransactionInstruction[], built: BuiltTransaction) => TransactionInstruction[];

describe('native-SOL send invites through the executor', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('send-variants');
  const stranger = Keypair.generate().publicKey;
  const venue = () => world.sim.ctx.state.venue;
  beforeAll(() => world.sim.ctx.state.send.useNativeSol(true));

  /** An executor whose builds go through `tamper` when one is set (the venue lying in its transaction). */
  const setup = async (tokens: Array<[string, bigint]> = []) => {
    const s = await executorFor(world, { lamports: 2_000_000_000n, tokens });
    let tamper: Tamper | undefined;
    const real = s.deps.build;
    s.deps.build = async (intent, id, signal) => {
      const built = await real(intent, id, signal);
      if (!tamper) return built;
      const m = TransactionMessage.decompile(built.tx.message);
      const tx = new VersionedTransaction(new TransactionMessage({ payerKey: m.payerKey, recentBlockhash: m.recentBlockhash, instructions: tamper(m.instructions, built) }).compileToV0Message());
      return { ...built, tx };
    };
    return { s, tampered: (t: Tamper | undefined) => (tamper = t) };
  };
  const sendIx = (ixs: TransactionInstruction[]): SendInstruction => decodeSendInstruction(rawInstruction(ixs.find((i) => i.programId.equals(SEND_PROGRAM))!))!;
  const landedSendIx = (signature: string): SendInstruction => sendIx(TransactionMessage.decompile(venue().chain.signatureStatus(signature)!.landed!.tx!.message).instructions);
  const holding = async (s: WalletExecutor) => balances(world.sim, s.wallet.address);
  /** The intent is refused with `rule`, the wallet signs nothing and keeps every lamport and token. */
  const refused = async (s: WalletExecutor, intent: Intent, rule: string) => {
    const before = await holding(s);
    const { result, rec } = await s.run(intent);
    expect(result).toEqual({ state: 'rejected' });
    expect(rec.error?.message).toContain(`${rule}: `);
    expect(rec.signature).toBeNull();
    expect(await holding(s)).toEqual(before);
    return rec;
  };
  const simulateLamports = async (tx: VersionedTransaction, address: PublicKey): Promise<bigint> => {
    const res = await fetch(world.sim.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'simulateTransaction', params: [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64', sigVerify: false, accounts: { encoding: 'base64', addresses: [address.toBase58()] } }] }),
    });
    const v = ((await res.json()) as { result: { value: { err: unknown; accounts: Array<{ lamports: number } | null> } } }).result.value;
    expect(v.err).toBeNull();
    return BigInt(v.accounts[0]?.lamports ?? 0) - venue().chain.lamports(address);
  };

  it('sends SOL into the invite account itself and claws every lamport of it back', async () => {
    const { s } = await setup();
    const sent = await s.run({ kind: 'send', mint: SOL, amount: 300_000_000n });
    expect(sent.result).toEqual({ state: 'landed' });
    const init = landedSendIx(sent.rec.signature!);
    const pda = deriveInvitePda(inviteKeypairFromCode(inviteCodeFor(s.wallet, sent.id)).publicKey);
    expect(init).toMatchObject({ name: 'initialize', amount: 300_000_000n, accounts: { sender: s.wallet.address, inviteInfo: pda.toBase58() } });
    const account = venue().chain.account(pda)!;
    expect(account.owner.equals(SEND_PROGRAM)).toBe(true);
    expect(account.data.length).toBe(INVITE_INFO_SIZE);
    expect(decodeInviteInfo(account.data)?.sender.toBase58()).toBe(s.wallet.address);
    expect(venue().chain.lamports(pda)).toBe(300_000_000n);
    expect(venue().chain.tokenAccountsOf(pda.toBase58())).toEqual([]);

    const before = (await holding(s)).lamports;
    const back = await s.run({ kind: 'send.clawback', invitePda: pda.toBase58() });
    expect(back.result).toEqual({ state: 'landed' });
    expect(landedSendIx(back.rec.signature!)).toMatchObject({ name: 'clawback', accounts: { inviteInfo: pda.toBase58(), sender: s.wallet.address } });
    const fee = venue().chain.signatureStatus(back.rec.signature!)!.landed!.fee;
    expect((await holding(s)).lamports).toBe(before + 300_000_000n - fee);
    expect(venue().chain.account(pda)).toBeNull();
    expect(s.reports.map((r) => r.violations)).toEqual([[], []]);
  });

  it('pays a native-SOL invite to whoever claims it with the code', async () => {
    const { s } = await setup();
    const sent = await s.run({ kind: 'send', mint: SOL, amount: 150_000_000n });
    const receiver = Keypair.generate().publicKey;
    await control(world.sim, '/send/claim', { code: inviteCodeFor(s.wallet, sent.id), receiver: receiver.toBase58() });
    expect((await balances(world.sim, receiver.toBase58())).lamports).toBe(150_000_000n);
  });

  it('refuses a native send of another amount, paid to a stranger, into an invite not the keeper\'s, or for a token', async () => {
    const { s, tampered } = await setup([[USDC, 10_000_000n]]);
    const intent: Intent = { kind: 'send', mint: SOL, amount: 100_000_000n };
    // Twice the amount, in the instruction and in the lamports the transaction moves.
    tampered((ixs) => ixs.map((ix) => {
      if (ix.programId.equals(SystemProgram.programId)) return SystemProgram.transfer({ fromPubkey: ix.keys[0]!.pubkey, toPubkey: ix.keys[1]!.pubkey, lamports: 200_000_000 });
      if (!ix.programId.equals(SEND_PROGRAM)) return ix;
      const d = Buffer.from(ix.data);
      d.writeBigUInt64LE(200_000_000n, 16);
      return new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data: d });
    }));
    await refused(s, intent, 'product-amount');
    // The lamports go to a stranger; the instruction still names the keeper's invite.
    let served: VersionedTransaction | undefined;
    tampered((ixs) => ixs.map((ix) => (ix.programId.equals(SystemProgram.programId) ? SystemProgram.transfer({ fromPubkey: ix.keys[0]!.pubkey, toPubkey: stranger, lamports: 100_000_000 }) : ix)));
    const real = s.deps.build;
    s.deps.build = async (...a) => {
      const b = await real(...a);
      served = b.tx;
      return b;
    };
    await refused(s, intent, 'destination');
    expect(await simulateLamports(served!, stranger)).toBe(100_000_000n);
    s.deps.build = real;
    // The venue's own invite: another signer and its PDA, which the keeper's code did not make.
    const theirs = Keypair.generate().publicKey;
    tampered((ixs) => ixs.map((ix) => {
      if (ix.programId.equals(SystemProgram.programId)) return SystemProgram.transfer({ fromPubkey: ix.keys[0]!.pubkey, toPubkey: invitePda(theirs).address, lamports: 100_000_000 });
      if (!ix.programId.equals(SEND_PROGRAM)) return ix;
      const d = sendIx([ix]);
      if (d.name !== 'initialize') throw new Error('no native initialize');
      return initializeInstruction({ sender: new PublicKey(d.accounts.sender), inviteSigner: theirs, inviteInfo: invitePda(theirs).address, expirySeconds: d.expirySeconds, amount: d.amount });
    }));
    await refused(s, intent, 'product-escrow');
    // A USDC send built as a native-SOL invite of the same amount in lamports.
    tampered((ixs, built) => {
      const signer = new PublicKey(built.engineSigners![0]!);
      const pda = invitePda(signer).address;
      return [
        ...ixs.filter((ix) => ix.programId.equals(new PublicKey(PROGRAM_IDS.computeBudget))),
        SystemProgram.transfer({ fromPubkey: s.wallet.publicKey, toPubkey: pda, lamports: 5_000_000 }),
        initializeInstruction({ sender: s.wallet.publicKey, inviteSigner: signer, inviteInfo: pda, expirySeconds: 4_000_000_000n, amount: 5_000_000n }),
      ];
    });
    await refused(s, { kind: 'send', mint: USDC, amount: 5_000_000n }, 'product-instruction');
    tampered(undefined);
    expect((await s.run(intent)).result).toEqual({ state: 'landed' });
  });

  it('refuses a native clawback paid short, paid to a stranger, or of another invite', async () => {
    const { s, tampered } = await setup();
    const sent = await s.run({ kind: 'send', mint: SOL, amount: 200_000_000n });
    const pda = deriveInvitePda(inviteKeypairFromCode(inviteCodeFor(s.wallet, sent.id)).publicKey).toBase58();
    const other = await s.run({ kind: 'send', mint: SOL, amount: 50_000_000n });
    const otherPda = deriveInvitePda(inviteKeypairFromCode(inviteCodeFor(s.wallet, other.id)).publicKey);
    const intent: Intent = { kind: 'send.clawback', invitePda: pda };
    const keeperPays = (to: PublicKey, lamports: number) => (ixs: TransactionInstruction[]) => ixs.map((ix) => (ix.programId.equals(SystemProgram.programId) ? SystemProgram.transfer({ fromPubkey: ix.keys[0]!.pubkey, toPubkey: to, lamports }) : ix));
    tampered(keeperPays(s.wallet.publicKey, 100_000_000));
    const short = await refused(s, intent, 'payout-short');
    expect(short.error?.message).toContain('every lamport the invite account');
    tampered(keeperPays(stranger, 200_000_000));
    await refused(s, intent, 'payout-short');
    // The clawback of the wallet's other invite, though the intent names this one.
    tampered((ixs) => ixs.map((ix) => (ix.programId.equals(SEND_PROGRAM) ? new TransactionInstruction({ programId: ix.programId, keys: [{ ...ix.keys[0]!, pubkey: otherPda }, ix.keys[1]!], data: ix.data }) : ix)));
    await refused(s, intent, 'product-target');
    tampered(undefined);
    expect((await s.run(intent)).result).toEqual({ state: 'landed' });
  });
});
