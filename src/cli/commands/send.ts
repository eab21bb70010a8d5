import { Option, type Command } from 'commander';
import { loadConfig, type KeeperConfig } from '../../config/index.js';
import { KeeperError } from '../../lib/errors.js';
import { knownByMint, WSOL_MINT } from '../../lib/mints.js';
import { pubkey } from '../../jupiter/schemas.js';
import type { JupiterClient } from '../../jupiter/client.js';
import type { SendInvite } from '../../jupiter/send/shared.js';
import type { IntentRecord } from '../../store/intents.js';
import { builtinStrategies } from '../../../strategies/index.js';
import { parseAddress, parseAmount, parseMint } from '../args.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { formatAmount, formatIsoTime, mintLabel, NONE } from '../format.js';
import { formatFields, formatTable } from '../output.js';
import { resolveLocation, withRedisArgs, type RedisArgs } from './redisArgs.js';
import type { SendSession } from './sendSession.js';

/** Options of `send` (its subcommands see them too: they are the group's). */
interface SendOptions extends RedisArgs {
  mint?: string;
  amount?: bigint;
  wallet?: string;
  rpcUrl?: string;
}

interface ListOptions {
  history?: boolean;
}

/** Pages of invites read at most per listing (the service's page size is its own), so a huge history cannot stall. */
const MAX_PAGES = 20;

/** What `send --json` prints. The invite code is in it, as in the text: shown this once, never stored or logged. */
export interface SendDocument {
  intent: string;
  state: 'landed';
  wallet: string;
  mint: string;
  amount: bigint;
  invitePda: string;
  inviteCode: string;
  expiry: string | null;
  signature: string | null;
}

/** What `send clawback --json` prints. */
export interface ClawbackDocument {
  intent: string;
  state: 'landed';
  wallet: string;
  invitePda: string;
  mint: string;
  amount: bigint;
  signature: string | null;
}

/**
 * Registers `send`, `send list` and `send clawback`: Jupiter Send invites as operator actions. `send` and `send
 * clawback` go through the keeper's executor over the deployment's intent ledger (sendSession.ts), so the pre-sign
 * guard, the kill switch and the exactly-once bookkeeping apply to them as to any intent; the invite code is printed
 * once when the send lands, and never stored or logged.
 */
export function registerSendCommand(program: Command, ctx: CliContext): void {
  // The group's options are read by its subcommands too (optsWithGlobals): commander gives an option the group knows
  // to the group wherever it is written, so `send list --json` and `send --json list` are the same.
  const group = withRedisArgs(
    program
      .command('send')
      .description('send tokens through a Jupiter Send invite: the invite code is printed once, for the recipient (see also `send list`, `send clawback`)')
      .option('--mint <mint>', 'token to send: a known symbol (SOL, USDC...) or a mint address', parseMint)
      .option('--amount <base units>', 'amount in base units of the mint (integer, e.g. 1000000 for 1 USDC)', parseAmount)
      .option('--wallet <keypair.json>', 'Solana CLI keypair file to sign with (default: JUPKEEPER_KEYPAIR_PATH, the config, JUPKEEPER_SECRET_KEY)')
      .addOption(new Option('--rpc-url <url>', 'Solana RPC (default: the config, SOLANA_RPC_URL on the live API, <base-url>/rpc on a simulator)')),
  );
  group.action(async (opts: SendOptions) => {
    if (opts.mint === undefined || opts.amount === undefined) {
      throw new UsageError(`send needs ${opts.mint === undefined ? '--mint <mint>' : ''}${opts.mint === undefined && opts.amount === undefined ? ' and ' : ''}${opts.amount === undefined ? '--amount <base units>' : ''} (or a subcommand: list, clawback)`);
    }
    const { mint, amount } = opts;
    await withSession(ctx, opts, async (session) => {
      const { inviteCodeFor } = await import('../../execution/sendInvite.js');
      const { invitePdaFromCode } = await import('../../jupiter/send/inviteCode.js');
      await checkBalance(session, mint, amount);
      const rec = await session.execute({ kind: 'send', mint, amount, reason: 'operator: jup-keeper send' });
      landedOrThrow(rec, 'the send');
      // Derived again from the wallet and the intent id, as the engine derives it: never written anywhere.
      const code = inviteCodeFor(session.wallet, rec.id);
      const doc: SendDocument = {
        intent: rec.id,
        state: 'landed',
        wallet: session.wallet.address,
        mint,
        amount,
        invitePda: invitePdaFromCode(code).toBase58(),
        inviteCode: code,
        expiry: typeof rec.quote?.expiry === 'string' ? rec.quote.expiry : null,
        signature: rec.signature,
      };
      if (opts.json) {
        ctx.io.json(doc);
        return;
      }
      ctx.io.out(
        formatFields([
          ['sent', amountText(amount, mint)],
          ['from', doc.wallet],
          ['invite', doc.invitePda],
          ['expires', formatIsoTime(doc.expiry)],
          ['signature', doc.signature ?? NONE],
          ['intent', doc.intent],
        ]),
      );
      ctx.io.out(`\ninvite code: ${code}\n(give it to the recipient; it is shown only this once and jup-keeper does not store it; \`jup-keeper send clawback ${doc.invitePda}\` takes the funds back while unclaimed)\n`);
    });
  });

  group
    .command('list')
    .description("the wallet's pending invites (with --history, also those claimed, clawed back or expired)")
    .argument('[address]', 'wallet whose invites to list (default: the wallet send signs with)', parseAddress)
    .option('--history', 'also list the invites that ended')
    .configureHelp({ showGlobalOptions: true })
    .action(async (address: string | undefined, own: ListOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<SendOptions & ListOptions>();
      const wallet = address ?? (await walletAddress(opts));
      const client = await ctx.client();
      const [pending, history] = await Promise.all([allInvites(client, 'pending', wallet), own.history ? allInvites(client, 'history', wallet) : undefined]);
      for (const [name, page] of [['pending', pending], ['history', history]] as const) {
        if (page?.truncated) ctx.io.err(`note: more ${name} invites exist than the first ${MAX_PAGES} pages listed\n`);
      }
      if (opts.json) {
        ctx.io.json({ wallet, pending: pending.invites, ...(history ? { history: history.invites } : {}) });
        return;
      }
      ctx.io.out(`Pending invites of ${wallet}\n`);
      ctx.io.out(pending.invites.length === 0 ? 'none\n' : pendingTable(pending.invites));
      if (history) {
        ctx.io.out(`\nInvite history of ${wallet}\n`);
        ctx.io.out(history.invites.length === 0 ? 'none\n' : historyTable(history.invites, wallet));
      }
    });

  group
    .command('clawback')
    .description("take an unclaimed invite's funds back to the wallet")
    .argument('<invite>', 'the invite: its address (as `send list` shows it) or its invite code')
    .configureHelp({ showGlobalOptions: true })
    .action(async (invite: string, _own: unknown, cmd: Command) => {
      const opts = cmd.optsWithGlobals<SendOptions>();
      const invitePda = await invitePdaOf(invite);
      await withSession(ctx, opts, async (session) => {
        const wallet = session.wallet.address;
        const pending = await allInvites(session.jup, 'pending', wallet);
        const found = pending.invites.find((i) => i.invitePda === invitePda);
        if (!found) throw await notPending(session.jup, wallet, invitePda);
        const rec = await session.execute({ kind: 'send.clawback', invitePda, reason: 'operator: jup-keeper send clawback' });
        landedOrThrow(rec, 'the clawback');
        const mint = found.mint ?? WSOL_MINT;
        const doc: ClawbackDocument = { intent: rec.id, state: 'landed', wallet, invitePda, mint, amount: found.amount, signature: rec.signature };
        if (opts.json) {
          ctx.io.json(doc);
          return;
        }
        ctx.io.out(
          formatFields([
            ['clawed back', amountText(found.amount, mint)],
            ['invite', invitePda],
            ['to', wallet],
            ['signature', doc.signature ?? NONE],
            ['intent', doc.intent],
          ]),
        );
      });
    });
}

/** The config named by --config, read with the wallet --wallet names (as `run` reads it). */
function configOf(opts: SendOptions, env: NodeJS.ProcessEnv): KeeperConfig | undefined {
  if (opts.config === undefined) return undefined;
  return loadConfig(opts.config, builtinStrategies, opts.wallet ? { ...env, JUPKEEPER_KEYPAIR_PATH: opts.wallet } : env);
}

/** The address of the wallet `send` signs with (for `send list` without an address). */
async function walletAddress(opts: SendOptions): Promise<string> {
  const { loadCliWallet } = await import('./sendSession.js');
  return loadCliWallet({ config: configOf(opts, process.env), walletFile: opts.wallet, env: process.env }).address;
}

/** Opens the executor session of `send` / `send clawback`, runs `fn`, and always closes it. */
async function withSession(ctx: CliContext, opts: SendOptions, fn: (s: SendSession) => Promise<void>): Promise<void> {
  const env = process.env;
  const config = configOf(opts, env);
  const location = resolveLocation(opts, env);
  const { loadCliWallet, openSendSession } = await import('./sendSession.js');
  const wallet = loadCliWallet({ config, walletFile: opts.wallet, env });
  const g = ctx.globals();
  const session = await openSendSession({ config, location, walletFile: opts.wallet, rpcUrl: opts.rpcUrl, baseUrl: g.baseUrl, jup: await ctx.client(), debug: g.debug, env }, wallet);
  try {
    await fn(session);
  } finally {
    await session.close();
  }
}

/**
 * Refuses early, before anything is recorded or built, a send the wallet cannot pay: the guard's simulation would
 * refuse it too, but with the program's error code rather than the balances. Best effort: when the venue cannot
 * tell the holdings, the guard alone decides.
 */
async function checkBalance(session: SendSession, mint: string, amount: bigint): Promise<void> {
  let held: bigint;
  try {
    const h = await session.jup.ultra.getHoldings({ address: session.wallet.address });
    const tokens = (h.tokens[mint] ?? []).reduce((sum, a) => sum + a.amount, 0n);
    // SOL is sent from the wallet's lamports (wrapped by the transaction) as well as any wrapped SOL it holds.
    held = mint === WSOL_MINT ? h.amount + tokens : tokens;
  } catch (err) {
    if (err instanceof KeeperError) return;
    throw err;
  }
  if (held < amount) {
    throw new KeeperError('SEND_INSUFFICIENT_FUNDS', 'abandon', `the wallet ${session.wallet.address} holds ${amountText(held, mint)}, less than the ${amountText(amount, mint)} asked; nothing was sent`);
  }
}

/** Throws, naming the intent and why, unless it landed. */
function landedOrThrow(rec: IntentRecord, what: string): void {
  if (rec.state === 'landed') return;
  const why = rec.error ? `${rec.error.rule ? `${rec.error.rule}: ` : ''}${rec.error.message} (${rec.error.code})` : 'no reason recorded';
  throw new KeeperError('SEND_NOT_LANDED', 'abandon', `${what} did not go through: intent ${rec.id} ended ${rec.state}: ${why}`);
}

const INVITE_CODE = /^[1-9A-HJ-NP-Za-km-z]{12}$/;

/**
 * The invite PDA an argument names: an address as `send list` shows it, or an invite code (turned into its PDA at
 * once). The argument is never echoed: a mistyped code is still nearly the secret.
 */
async function invitePdaOf(arg: string): Promise<string> {
  const value = arg.trim();
  if (INVITE_CODE.test(value)) {
    const { invitePdaFromCode } = await import('../../jupiter/send/inviteCode.js');
    return invitePdaFromCode(value).toBase58();
  }
  if (pubkey.safeParse(value).success) return value;
  throw new UsageError('the invite is neither an invite address (base58, 32 to 44 characters, as `send list` shows it) nor an invite code (12 base58 characters)');
}

/** Why an invite cannot be clawed back: ended (with how and when), or never sent by this wallet. */
async function notPending(client: JupiterClient, wallet: string, invitePda: string): Promise<KeeperError> {
  const history = await allInvites(client, 'history', wallet);
  const ended = history.invites.find((i) => i.invitePda === invitePda);
  if (ended) {
    return new KeeperError('SEND_INVITE_ENDED', 'abandon', `invite ${invitePda} is no longer pending: ${endedText(ended, wallet)}; nothing to claw back`);
  }
  return new KeeperError('SEND_INVITE_UNKNOWN', 'abandon', `no pending invite ${invitePda} sent by ${wallet} (see \`jup-keeper send list\`)`);
}

/** Every page of one listing, up to MAX_PAGES. */
async function allInvites(client: JupiterClient, which: 'pending' | 'history', address: string): Promise<{ invites: SendInvite[]; truncated: boolean }> {
  const invites: SendInvite[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const r = which === 'pending' ? await client.send.getPendingInvites({ address, page }) : await client.send.getInviteHistory({ address, page });
    invites.push(...r.invites);
    if (!r.hasMoreData) return { invites, truncated: false };
  }
  return { invites, truncated: true };
}

/** An amount with its token: "5 USDC (5000000 base units)", or base units alone for a mint of unknown decimals. */
function amountText(amount: bigint, mint: string): string {
  const known = knownByMint(mint);
  return known ? `${formatAmount(amount, known.decimals, known.symbol)} (${amount} base units)` : `${amount} base units of ${mint}`;
}

/** An amount for a table cell: human with a known mint's decimals, base units otherwise. */
function amountCell(i: SendInvite): string {
  const known = knownByMint(i.mint ?? WSOL_MINT);
  return known ? formatAmount(i.amount, known.decimals) : `${i.amount} (base units)`;
}

/** A timestamp as the service sent it: ISO (the examples) or Unix seconds (the spec's prose). */
function timeText(value: string | null): string {
  if (value === null) return NONE;
  return /^\d+$/.test(value) ? formatIsoTime(new Date(Number(value) * 1000).toISOString()) : formatIsoTime(value);
}

function endedText(i: SendInvite, wallet: string): string {
  const how = i.action === 'clawback' ? 'clawed back' : i.action === 'claimed' ? `claimed${i.receiver && i.receiver !== wallet ? ` by ${i.receiver}` : ''}` : (i.action ?? 'ended');
  return `${how} ${timeText(i.deletionTime)}`;
}

function pendingTable(invites: readonly SendInvite[]): string {
  return formatTable(
    [{ header: 'INVITE' }, { header: 'AMOUNT', align: 'right' }, { header: 'TOKEN' }, { header: 'SENT' }, { header: 'EXPIRES' }],
    invites.map((i) => [i.invitePda, amountCell(i), mintLabel(i.mint ?? WSOL_MINT), timeText(i.creationTime), timeText(i.expiry)]),
  );
}

function historyTable(invites: readonly SendInvite[], wallet: string): string {
  return formatTable(
    [{ header: 'INVITE' }, { header: 'AMOUNT', align: 'right' }, { header: 'TOKEN' }, { header: 'ENDED' }, { header: 'HOW' }, { header: 'RECEIVER' }],
    invites.map((i) => [
      i.invitePda,
      amountCell(i),
      mintLabel(i.mint ?? WSOL_MINT),
      timeText(i.deletionTime),
      i.action === 'clawback' ? 'clawed back' : (i.action ?? NONE),
      i.receiver ?? (i.sender === wallet ? NONE : i.sender),
    ]),
  );
}
