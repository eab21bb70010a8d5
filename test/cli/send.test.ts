import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { Keypair } from '@solana/web3.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/server.js';
import { scratchDir, writeKeypair } from '../helpers/keeper.js';
import { startHostileVenue, type HostileVenue } from '../helpers/hostileVenue.js';
import { airdrop, balances, control, startTestSim, SOL, USDC } from '../helpers/sim.js';
import { against, hasStackTrace, runCli, type CliRun } from './runCli.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const PREFIX = `send-cli-${randomBytes(4).toString('hex')}`;

/** One invite as `send list --json` prints it (amounts as decimal strings). */
interface ListedInvite {
  invitePda: string;
  sender: string;
  amount: string;
  mint: string | null;
  action: string | null;
  receiver: string | null;
}

interface Listing {
  wallet: string;
  pending: ListedInvite[];
  history?: ListedInvite[];
}

/** What `send --json` prints. */
interface Sent {
  intent: string;
  state: string;
  wallet: string;
  mint: string;
  amount: string;
  invitePda: string;
  inviteCode: string;
  expiry: string | null;
  signature: string;
}

// `jup-keeper send`, `send list` and `send clawback`, the real binary, against the simulator over real HTTP with the
// Redis on 6379 as the ledger: what an operator sees, and what the wallet, the recipient and the ledger end up with.
describe.concurrent('jup-keeper send', { timeout: 120_000 }, () => {
  let sim: RunningSimulator;
  const scratch = scratchDir('send-cli');
  let redis: Redis;

  beforeAll(async () => {
    sim = await startTestSim();
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  });
  afterAll(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
    await sim.close();
    scratch.cleanup();
  });

  /** A wallet file funded on the simulator, and a `cli` that runs `jup-keeper send ...` signing with it. */
  async function operator(tokens: Array<[string, bigint]> = [[USDC, 20_000_000n]], url = () => sim.url) {
    const { path, keypair } = writeKeypair(scratch.dir, `wallet-${randomBytes(4).toString('hex')}.json`);
    await airdrop(sim, keypair, SOL, 1_000_000_000n);
    for (const [mint, amount] of tokens) await airdrop(sim, keypair, mint, amount);
    const address = keypair.publicKey.toBase58();
    const cli = (...args: string[]): Promise<CliRun> => runCli(['send', ...args, '--wallet', path, '--redis-url', REDIS_URL, '--prefix', PREFIX, ...against(url())]);
    const list = async (...args: string[]): Promise<Listing> => {
      const run = await cli('list', '--json', ...args);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      return JSON.parse(run.stdout) as Listing;
    };
    const usdc = async (): Promise<bigint> => (await balances(sim, address)).tokens[USDC] ?? 0n;
    return { path, keypair, address, cli, list, usdc };
  }

  const claim = (code: string, receiver: string) => control<{ signature: string; amount: string }>(sim, '/send/claim', { code, receiver });

  it('prints the invite code once; the invite is pending in `send list`; the recipient who claims with that code is paid', async () => {
    const op = await operator();
    const run = await op.cli('--mint', 'USDC', '--amount', '5000000');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const codes = [...run.stdout.matchAll(/invite code: ([1-9A-HJ-NP-Za-km-z]{12})\n/g)].map((m) => m[1]!);
    expect(codes).toHaveLength(1);
    const code = codes[0]!;
    // The code appears in the output exactly once.
    expect(run.stdout.split(code)).toHaveLength(2);
    expect(run.stdout).toMatch(/^sent\s+5 USDC \(5000000 base units\)$/m);
    const pda = /^invite\s+(\S+)$/m.exec(run.stdout)?.[1];
    expect(await op.usdc()).toBe(15_000_000n);

    expect((await op.list()).pending).toEqual([expect.objectContaining({ invitePda: pda, sender: op.address, amount: '5000000', mint: USDC })]);
    const table = await op.cli('list');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^${pda}\\s+5\\s+USDC\\s`, 'm'));
    // Nobody but the recipient is shown the code again.
    expect(table.stdout).not.toContain(code);

    const receiver = Keypair.generate().publicKey.toBase58();
    await claim(code, receiver);
    expect((await balances(sim, receiver)).tokens[USDC]).toBe(5_000_000n);
    const after = await op.list('--history');
    expect(after.pending).toEqual([]);
    expect(after.history).toEqual([expect.objectContaining({ invitePda: pda, action: 'claimed', receiver, amount: '5000000' })]);
    const history = await op.cli('list', '--history');
    expect(history.stdout).toMatch(new RegExp(`^${pda}\\s+5\\s+USDC\\s.*\\sclaimed\\s+${receiver}$`, 'm'));
  });

  it('claws an invite back: the funds return to the wallet and the invite moves to the history', async () => {
    const op = await operator();
    const sent = await op.cli('--mint', USDC, '--amount', '7000000', '--json');
    expect(sent.code).toBe(0);
    const doc = JSON.parse(sent.stdout) as Sent;
    expect(doc).toMatchObject({ state: 'landed', wallet: op.address, mint: USDC, amount: '7000000', inviteCode: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{12}$/) });
    expect(await op.usdc()).toBe(13_000_000n);
    expect((await op.list()).pending.map((i) => i.invitePda)).toEqual([doc.invitePda]);

    const back = await op.cli('clawback', doc.invitePda);
    expect(back.stderr).toBe('');
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/^clawed back\s+7 USDC \(7000000 base units\)$/m);
    expect(await op.usdc()).toBe(20_000_000n);
    const listing = await op.list('--history');
    expect(listing.pending).toEqual([]);
    expect(listing.history).toEqual([expect.objectContaining({ invitePda: doc.invitePda, action: 'clawback', amount: '7000000' })]);

    // The code no longer opens anything, and a second clawback says why there is nothing to take back.
    await expect(claim(doc.inviteCode, Keypair.generate().publicKey.toBase58())).rejects.toThrow(/no longer claimable/);
    const again = await op.cli('clawback', doc.invitePda);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`^error: invite ${doc.invitePda} is no longer pending: clawed back `));
    expect(await op.usdc()).toBe(20_000_000n);
  });

  it('claws back a SOL invite named by its code', async () => {
    const op = await operator([]);
    const before = (await balances(sim, op.address)).lamports;
    const sent = JSON.parse((await op.cli('--mint', 'sol', '--amount', '200000000', '--json')).stdout) as Sent;
    expect(sent.mint).toBe(SOL);
    const spent = before - (await balances(sim, op.address)).lamports;
    expect(spent).toBeGreaterThanOrEqual(200_000_000n);
    const back = await op.cli('clawback', sent.inviteCode, '--json');
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ state: 'landed', invitePda: sent.invitePda, mint: SOL, amount: '200000000' });
    // Back to where it was but for the network fees of the two transactions (well under 0.01 SOL).
    const lost = before - (await balances(sim, op.address)).lamports;
    expect(lost).toBeGreaterThan(0n);
    expect(lost).toBeLessThan(10_000_000n);
  });

  it('keeps the code out of the ledger, the logs and the errors; the secret key is never printed', async () => {
    const op = await operator();
    const run = await op.cli('--mint', 'USDC', '--amount', '1000000', '--json', '--debug');
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as Sent;
    expect(run.stderr).not.toContain(doc.inviteCode);
    const secret = bs58.encode(op.keypair.secretKey);
    for (const text of [run.stdout, run.stderr]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(JSON.stringify(Array.from(op.keypair.secretKey)).slice(1, 40));
    }
    // The intent is in the deployment's ledger (as `jup-keeper intents` shows it), without the code anywhere.
    const intents = await runCli(['intents', '--json', '--redis-url', REDIS_URL, '--prefix', PREFIX]);
    expect(JSON.parse(intents.stdout)).toContainEqual(expect.objectContaining({ id: doc.intent, strategy: '_cli', kind: 'send', state: 'landed', signatures: [doc.signature] }));
    expect(intents.stdout).not.toContain(doc.inviteCode);
    const stored = await everythingUnder(redis, PREFIX);
    expect(stored).toContain(doc.signature);
    expect(stored).not.toContain(doc.inviteCode);
  });

  it('refuses bad arguments with a message naming what is wrong, sending nothing', async () => {
    const op = await operator();
    const usage: Array<[string[], RegExp]> = [
      [['--mint', 'NOTATOKEN', '--amount', '5'], /"NOTATOKEN" is neither a known token symbol .* nor a base58 mint address/],
      [['--mint', 'USDC', '--amount', '0'], /amount must be greater than 0/],
      [['--mint', 'USDC', '--amount', '-5'], /--amount <base units>' argument '-5' is invalid\. amount must be a non-negative integer/],
      [['--mint', 'USDC', '--amount', '1.5'], /--amount <base units>' argument '1\.5' is invalid\. amount must be a non-negative integer string.*\(base units/],
      [['--mint', 'USDC'], /^error: send needs --amount <base units>/],
      [['clawback', 'not an invite'], /the invite is neither an invite address .* nor an invite code/],
    ];
    const runs = await Promise.all(usage.map(([args]) => op.cli(...args)));
    runs.forEach((run, i) => {
      expect(run.code, usage[i]![0].join(' ')).toBe(2);
      expect(run.stderr).toMatch(usage[i]![1]);
      expect(hasStackTrace(run.stderr)).toBe(false);
    });
    // A mistyped code is nearly the secret: never echoed.
    const typo = await op.cli('clawback', 'Kwbq2etD1cn0');
    expect(typo.code).toBe(2);
    expect(typo.stderr).not.toContain('Kwbq2etD1cn0');

    const stranger = Keypair.generate().publicKey.toBase58();
    const unknown = await op.cli('clawback', stranger);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`error: no pending invite ${stranger} sent by ${op.address} (see \`jup-keeper send list\`) (SEND_INVITE_UNKNOWN)\n`);

    const tooMuch = await op.cli('--mint', 'USDC', '--amount', '20000001');
    expect(tooMuch.code).toBe(1);
    expect(tooMuch.stderr).toMatch(/holds 20 USDC \(20000000 base units\), less than the 20\.000001 USDC \(20000001 base units\) asked; nothing was sent/);

    const noWallet = await runCli(['send', '--mint', 'USDC', '--amount', '5', '--redis-url', REDIS_URL, '--prefix', PREFIX, ...against(sim.url)], { JUPKEEPER_KEYPAIR_PATH: '', JUPKEEPER_SECRET_KEY: '' });
    expect(noWallet.code).toBe(2);
    expect(noWallet.stderr).toMatch(/^error: no wallet to sign with: pass --wallet/);

    expect(await op.usdc()).toBe(20_000_000n);
    expect((await op.list()).pending).toEqual([]);
  });

  it('stops at the kill switch like any intent: nothing is built or signed', async () => {
    const op = await operator();
    const prefix = `${PREFIX}-halted`;
    const on = await runCli(['kill-switch', 'on', '--reason', 'operator test', '--redis-url', REDIS_URL, '--prefix', prefix]);
    expect(on.code).toBe(0);
    try {
      const run = await runCli(['send', '--mint', 'USDC', '--amount', '1000000', '--wallet', op.path, '--redis-url', REDIS_URL, '--prefix', prefix, ...against(sim.url)]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^error: the send did not go through: intent cli\.send\.\w+ ended rejected: kill-switch.*operator test/);
      expect(await op.usdc()).toBe(20_000_000n);
    } finally {
      await redis.del(...(await redis.keys(`${prefix}:*`)));
    }
  });

  describe('with a venue that lies in the transaction it hands out', () => {
    let hostile: HostileVenue;
    beforeAll(async () => {
      hostile = await startHostileVenue(sim);
    });
    afterAll(async () => {
      await hostile.close();
    });

    it('is refused by the pre-sign guard: the wallet signs nothing and keeps its funds', async () => {
      const op = await operator([[USDC, 20_000_000n]], () => hostile.url);
      hostile.planProduct({ product: 'send', wallet: op.address, attack: { kind: 'amount' } });
      const run = await op.cli('--mint', 'USDC', '--amount', '5000000');
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^error: the send did not go through: intent cli\.send\.\w+ ended rejected: .*product-amount/);
      expect(run.stdout).not.toMatch(/invite code/);
      expect(hostile.productAttacks().filter((a) => a.wallet === op.address && a.served)).toHaveLength(1);
      expect(hostile.signatures({ signer: op.address })).toEqual([]);
      expect(await op.usdc()).toBe(20_000_000n);
    });
  });
});

/** Every value stored under a prefix, concatenated (hashes, strings, sets, sorted sets, lists, streams). */
async function everythingUnder(redis: Redis, prefix: string): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'string') parts.push((await redis.get(key)) ?? '');
      else if (type === 'set') parts.push((await redis.smembers(key)).join(' '));
      else if (type === 'zset') parts.push((await redis.zrange(key, 0, -1)).join(' '));
      else if (type === 'list') parts.push((await redis.lrange(key, 0, -1)).join(' '));
      else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
      parts.push(key);
    }
    cursor = next;
  } while (cursor !== '0');
  return parts.join('\n');
}
