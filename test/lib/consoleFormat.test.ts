// The console a person reads (issue 13, item 3; issue 23, item 2): a JSON log record in, the exact human line out. The records are
// the keeper's own (the fields of 'keeper started', 'filled', 'claimed', 'summary' as src/main.ts,
// src/engine/landings.ts and src/notify/wire.ts log them).
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatRecord, prettyDestination } from '../../src/lib/consoleFormat.js';
import { createLogger } from '../../src/lib/logger.js';

const T = Date.parse('2026-11-27T06:01:02.345Z');
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const SIG = '4xKq9TJm2Hc8qJ1n7k8W5xkQwBaz3d6mQ5f2Xo7mUvP1tq7yWJv3e9K6c2N8s4R1';
const ORDER = 'Fo8T1wHosVwiBPrNMSyRm96DV2mv8bxRQLzDc8Ufh4c';

describe('the human console', () => {
  it('shows a swap fill in human units with its price, its fee and signature', () => {
    const rec = { level: 30, time: T, service: 'jup-keeper', component: 'landings', msg: 'filled', instance: 'dca-sol-usdc', intent: 'i1', kind: 'swap', signature: SIG, in: { mint: SOL, symbol: 'SOL', amount: '50000000', decimals: 9 }, out: { mint: USDC, symbol: 'USDC', amount: '7410000', decimals: 6 }, price: 148.2, priceUnit: 'USD/SOL', usd: 7.41, feeLamports: '5000' };
    expect(formatRecord(rec)).toBe('06:01:02 filled  dca-sol-usdc  swap 0.05 SOL → 7.41 USDC @ 148.20 USD/SOL  fee 0.000005 SOL  sig 4xKq…s4R1\n');
  });

  // The fills of resting orders, as the venue reconciliation logs them (src/keeper/venueFills.ts): one line each.
  const venueFill = { level: 30, time: T, service: 'jup-keeper', component: 'keeper', job: 'venue-reconcile', instance: 'ladder', intent: 'ladder.trigger.create.1b77e7ddbdc0d1c425e8', order: ORDER, signature: SIG, filledAt: T - 4000 };

  it('shows each fill of a limit order, a partial one too, with its amounts, price and the venue\'s fee', () => {
    const rec = { ...venueFill, msg: 'filled', kind: 'trigger.fill', in: { mint: USDC, symbol: 'USDC', amount: '10000000', decimals: 6 }, out: { mint: SOL, symbol: 'SOL', amount: '55480000', decimals: 9 }, price: 180.25, priceUnit: 'USD/SOL', fee: { mint: SOL, symbol: 'SOL', amount: '55480', decimals: 9 } };
    expect(formatRecord(rec)).toBe('06:01:02 filled  ladder  trigger 10.00 USDC → 0.05548 SOL @ 180.25 USD/SOL  fee 0.00005548 SOL  sig 4xKq…s4R1\n');
    const sell = { ...rec, in: { mint: SOL, symbol: 'SOL', amount: '40000000', decimals: 9 }, out: { mint: USDC, symbol: 'USDC', amount: '7216000', decimals: 6 }, price: 180.4, fee: { mint: USDC, symbol: 'USDC', amount: '7220', decimals: 6 } };
    expect(formatRecord(sell)).toBe('06:01:02 filled  ladder  trigger 0.04 SOL → 7.22 USDC @ 180.40 USD/SOL  fee 0.00722 USDC  sig 4xKq…s4R1\n');
  });

  it('shows each cycle of a recurring order with what it bought', () => {
    const rec = { ...venueFill, msg: 'filled', instance: 'dca-usdc-sol', intent: 'dca-usdc-sol.recurring.create.7525013841a70874d46e', kind: 'recurring.fill', in: { mint: USDC, symbol: 'USDC', amount: '55000000', decimals: 6 }, out: { mint: SOL, symbol: 'SOL', amount: '305000000', decimals: 9 }, price: 180.33, priceUnit: 'USD/SOL', fee: { mint: SOL, symbol: 'SOL', amount: '915000', decimals: 9 } };
    expect(formatRecord(rec)).toBe('06:01:02 filled  dca-usdc-sol  recurring 55.00 USDC → 0.305 SOL @ 180.33 USD/SOL  fee 0.000915 SOL  sig 4xKq…s4R1\n');
  });

  it('shows a prediction fill with its side, dollars, contracts, price and fee', () => {
    const buy = { ...venueFill, msg: 'filled', instance: 'edge', intent: 'edge.prediction.buy.54cdfd9517b6f8474761', kind: 'prediction.fill', side: 'buy', marketId: 'POLY-2004032', outcome: 'yes', contractsMicro: '5260000', usdMicro: '4980000', priceUsd: 0.9412, feeMicroUsd: '30000' };
    expect(formatRecord(buy)).toBe('06:01:02 filled  edge  prediction buy $4.98 → 5.26 YES POLY-2004032 @ 0.9412 USD/contract  fee $0.03  sig 4xKq…s4R1\n');
    const sell = { ...buy, side: 'sell', marketId: 'KXSOL5M-4032-UP', outcome: 'no', usdMicro: '4950000', priceUsd: 0.95 };
    expect(formatRecord(sell)).toBe('06:01:02 filled  edge  prediction sell 5.26 NO KXSOL5M-4032-UP → $4.95 @ 0.95 USD/contract  fee $0.03  sig 4xKq…s4R1\n');
  });

  it('shortens ids, addresses and signatures on every other line; the JSON lines keep them whole', () => {
    const ended = { ...venueFill, msg: 'venue order ended: filled; ledger updated', product: 'trigger', from: 'open', to: 'filled' };
    // A resting order's change of status: one short line of its own.
    expect(formatRecord(ended)).toBe('06:01:02 order  ladder  trigger Fo8T…fh4c filled (was open)  intent trigger.create.1b77…25e8\n');
    expect(formatRecord({ ...ended, msg: 'venue order open', from: null, to: 'open' })).toBe('06:01:02 order  ladder  trigger Fo8T…fh4c open  intent trigger.create.1b77…25e8\n');
    expect(formatRecord({ ...ended, job: 'sweep', msg: 'report', to: undefined, from: undefined, product: undefined, filledAt: undefined })).toBe('06:01:02 INFO  keeper ladder  report  job=sweep intent=trigger.create.1b77…25e8 order=Fo8T…fh4c signature=4xKq…s4R1\n');
    const claim = { level: 30, time: T, component: 'keeper', job: 'claims', msg: 'claiming a settled winning position', intent: '_keeper.prediction.claim.516d36c0dcdac5fa6829', position: 'HAFarfR4NfZPP4KrTED43ens6RVoLAh2wFWuABcg4pmm', marketId: 'POLY-2004032', side: 'yes', payoutMicroUsd: '9470000' };
    expect(formatRecord(claim)).toBe('06:01:02 INFO  keeper  claiming a settled winning position  job=claims intent=_keeper.prediction.claim.516d…6829 position=HAFa…4pmm marketId=POLY-2004032 side=yes payoutMicroUsd=9470000\n');
    const funded = { level: 30, time: T, msg: 'fresh paper wallet funded by the simulator', wallet: '8W8Q5oMnaTqaebBUwVZGRhcQoxzkSib4aKF5GncQrnHz', funded: ['SOL', 'USDC'], stranded: [{ order: ORDER, account: 'HAFarfR4NfZPP4KrTED43ens6RVoLAh2wFWuABcg4pmm' }] };
    expect(formatRecord(funded)).toBe('06:01:02 INFO   fresh paper wallet funded by the simulator  wallet=8W8Q…rnHz funded=["SOL","USDC"] stranded=[{"order":"Fo8T…fh4c","account":"HAFa…4pmm"}]\n');
    expect(formatRecord({ level: 40, time: T, msg: `order ${ORDER} not found; checking again`, intent: 'x.swap.0123456789abcdef0123-2' })).toBe('06:01:02 WARN   order Fo8T…fh4c not found; checking again  intent=x.swap.0123…0123-2\n');
    const json: string[] = [];
    createLogger({ destination: { write: (s: string) => void json.push(s) }, format: 'json' }).info({ intent: ended.intent, order: ORDER, signature: SIG }, ended.msg);
    expect(JSON.parse(json.join(''))).toMatchObject({ intent: 'ladder.trigger.create.1b77e7ddbdc0d1c425e8', order: ORDER, signature: SIG });
  });

  it('shows a buy the other way round at USD per token, and large and small amounts readably', () => {
    const rec = { level: 30, time: T, msg: 'filled', instance: 'ladder', kind: 'swap', signature: SIG, in: { mint: USDC, symbol: 'USDC', amount: '1234567891', decimals: 6 }, out: { mint: JUP, symbol: 'JUP', amount: '1543210', decimals: 6 }, price: 800.0, priceUnit: 'USD/JUP' };
    expect(formatRecord(rec)).toBe('06:01:02 filled  ladder  swap 1,234.57 USDC → 1.5432 JUP @ 800.00 USD/JUP  sig 4xKq…s4R1\n');
    const tiny = { level: 30, time: T, msg: 'filled', instance: 'p', kind: 'swap', signature: null, in: { mint: SOL, symbol: 'SOL', amount: '1234', decimals: 9 }, out: { mint: JUP, symbol: 'JUP', amount: '15', decimals: 6 }, price: 0.01215, priceUnit: 'JUP/SOL' };
    expect(formatRecord(tiny)).toBe('06:01:02 filled  p  swap 0.000001234 SOL → 0.000015 JUP @ 0.01215 JUP/SOL\n');
  });

  it('shows an order or a deposit with its one amount', () => {
    const rec = { level: 30, time: T, msg: 'filled', instance: 'idle-yield', kind: 'lend.deposit', signature: SIG, in: { mint: 'JuprjznTrTSp2UFa3ZBUFgwdAmtZCq4MQCwysN55USD', symbol: 'JupUSD', amount: '100000000', decimals: 6 } };
    expect(formatRecord(rec)).toBe('06:01:02 deposited  idle-yield  lend.deposit 100.00 JupUSD  sig 4xKq…s4R1\n');
    // An order placed is not filled yet: its fills come later, from the venue.
    const order = { level: 30, time: T, msg: 'filled', instance: 'ladder', kind: 'trigger.create', signature: SIG, in: { mint: USDC, symbol: 'USDC', amount: '10000000', decimals: 6 }, out: { mint: SOL, symbol: 'SOL', amount: '55480000', decimals: 9 }, price: 180.25, priceUnit: 'USD/SOL' };
    expect(formatRecord(order)).toMatch(/^06:01:02 placed {2}ladder {2}trigger\.create 10\.00 USDC → 0\.05548 SOL @ 180\.25 USD\/SOL {2}sig 4xKq…s4R1\n$/);
  });

  it('shows a claim with what it claimed', () => {
    const rec = { level: 30, time: T, msg: 'claimed', instance: 'keeper', kind: 'prediction.claim', signature: SIG, reason: 'claim $10.2 of a settled winning position in POLY-1' };
    expect(formatRecord(rec)).toBe('06:01:02 claimed  keeper  claim $10.2 of a settled winning position in POLY-1  sig 4xKq…s4R1\n');
  });

  it('shows the summary with its scope: the session, its trades (claims among them), volume, fees, realised and unrealised P&L, refusals', () => {
    const rec = { level: 30, time: T, msg: 'summary', period: 'session 2', session: 2, sinceMs: 312_000, trades: 12, claims: 1, volumeUsd: 1184.2, feesLamports: '60000', refusals: 2, errors: 0, pnlUsd: -0.19, unrealizedUsd: -0.56 };
    expect(formatRecord(rec)).toBe('06:01:02 summary  session 2 (5m): 12 trades (1 claim), $1,184.20 volume, 0.00006 SOL fees, P&L realised -$0.19, unrealised -$0.56, 2 refusals\n');
    expect(formatRecord({ ...rec, trades: 1, claims: 0, refusals: 1, errors: 3, pnlUsd: null, unrealizedUsd: null, sinceMs: 4_000_000 })).toBe('06:01:02 summary  session 2 (1h07m): 1 trade, $1,184.20 volume, 0.00006 SOL fees, P&L realised unknown, unrealised unknown, 1 refusal, 3 errors\n');
  });

  it('starts with a banner naming the venue, the wallet, each strategy with its schedule, and the limits', () => {
    const rec = {
      level: 30,
      time: T,
      msg: 'keeper started',
      role: 'all',
      wallet: 'ABLWj9yjWJPpBztDPYRk2GLbDnitDQNKZhPbd6wKhHPo',
      venue: 'simulator',
      venueUrl: 'http://127.0.0.1:45965',
      strategies: ['dca-sol-usdc', 'ladder'],
      instances: [
        { id: 'dca-sol-usdc', strategy: 'dca-swap', schedule: 'every 15s' },
        { id: 'ladder', strategy: 'limit-ladder', schedule: 'cron */5 * * * * (Europe/Paris)' },
      ],
      limits: { maxNotionalUsdPerIntent: 150, maxDailyNotionalUsd: 5000, maxSlippageBps: 100, minSolReserveLamports: '20000000', maxIntentsPerEvaluation: 8, maxDrawdownPct: 20 },
    };
    const rule = '='.repeat(78);
    expect(formatRecord(rec)).toBe(
      [
        rule,
        ' jup-keeper  PAPER TRADING on the simulator (no real money)',
        ' venue      simulator at http://127.0.0.1:45965',
        ' wallet     ABLWj9yjWJPpBztDPYRk2GLbDnitDQNKZhPbd6wKhHPo',
        ' strategies 2',
        '   dca-sol-usdc  dca-swap      every 15s',
        '   ladder        limit-ladder  cron */5 * * * * (Europe/Paris)',
        ' limits',
        '   per intent            $150.00 max',
        '   per UTC day           $5,000.00 max',
        '   slippage              1% max',
        '   SOL reserve           0.02 SOL kept',
        '   drawdown              20% halts',
        '   intents per decision  8 max',
        rule,
        '',
      ].join('\n'),
    );
    expect(formatRecord({ ...rec, venue: 'live', venueUrl: 'https://api.jup.ag' })).toContain(' jup-keeper  LIVE TRADING: REAL MONEY, REAL TRANSACTIONS\n venue      live at https://api.jup.ag\n');
  });

  it('lists thirty strategies in the banner and counts the rest', () => {
    const instances = Array.from({ length: 10_000 }, (_, i) => ({ id: `dca-${i}`, strategy: 'dca-swap', schedule: 'every 1m' }));
    const text = formatRecord({ level: 30, time: T, msg: 'keeper started', venue: 'simulator', wallet: 'W', strategies: instances.map((i) => i.id), instances })!;
    expect(text).toContain(' strategies 10000\n   dca-0   dca-swap  every 1m\n');
    expect(text).toContain('   dca-29  dca-swap  every 1m\n   … and 9970 more\n');
    expect(text.split('\n').length).toBeLessThan(40);
  });

  it('folds the three per-trade lines a fill line replaces, and shows any other line with its fields', () => {
    for (const msg of ['intent planned', 'signed; signature persisted before submit', 'landed']) expect(formatRecord({ level: 30, time: T, msg })).toBeUndefined();
    expect(formatRecord({ level: 40, time: T, service: 'jup-keeper', pid: 1, hostname: 'h', component: 'evaluate', instance: 'dca', msg: 'risk gate rejected: over the limit', intent: 'i9', rule: 'max-notional' })).toBe('06:01:02 WARN  evaluate dca  risk gate rejected: over the limit  intent=i9 rule=max-notional\n');
    expect(formatRecord({ level: 50, time: T, msg: 'boom', err: { message: 'bad thing' } })).toBe('06:01:02 ERROR  boom  err={"message":"bad thing"}\n');
    expect(formatRecord({ level: 30, time: T, msg: 'stopping', why: '--duration 14s elapsed' })).toBe('06:01:02 INFO   stopping  why="--duration 14s elapsed"\n');
  });

  it('renders a pino logger created with format pretty, and leaves JSON lines alone with format json', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) });
    const pretty = createLogger({ destination: { write: (s: string) => sink.write(s) }, format: 'pretty' });
    pretty.info({ instance: 'dca', kind: 'swap', signature: SIG, in: { mint: SOL, symbol: 'SOL', amount: '50000000', decimals: 9 }, out: { mint: USDC, symbol: 'USDC', amount: '7410000', decimals: 6 }, price: 148.2, priceUnit: 'USD/SOL' }, 'filled');
    pretty.info({ intent: 'x' }, 'landed');
    expect(lines.join('')).toMatch(/^\d\d:\d\d:\d\d filled {2}dca {2}swap 0\.05 SOL → 7\.41 USDC @ 148\.20 USD\/SOL {2}sig 4xKq…s4R1\n$/);
    const json: string[] = [];
    createLogger({ destination: { write: (s: string) => void json.push(s) }, format: 'json' }).info({ instance: 'dca' }, 'filled');
    expect(JSON.parse(json.join(''))).toMatchObject({ msg: 'filled', instance: 'dca', level: 30 });
  });

  it('passes a line that is not JSON through', () => {
    const out: string[] = [];
    prettyDestination({ write: (s: string) => out.push(s) }).write('not json\n');
    expect(out).toEqual(['not json\n']);
  });
});
