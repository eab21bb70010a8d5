import { performance } from 'node:perf_hooks';
import { PublicKey } from '@solana/web3.js';
import { WSOL_MINT } from '../../lib/mints.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import type { SimState } from '../state.js';
import { predictionPositions, PREDICTION_PLATFORM_ID } from './portfolioPrediction.js';
import { decodeDcaAccount } from '../../jupiter/programs/recurring.js';
import { decodeOrderAccount } from '../../jupiter/programs/trigger.js';
import { AssetPricer, totalValue, tradeElement, walletElement, yieldOf, type PortfolioElementJson } from './portfolioElements.js';

/*
 * The Portfolio API (beta, jupiter-api.md §10) on the simulator: like Sonar Watch's service behind it, each
 * fetcher reads one platform's positions of a wallet from the chain (token accounts, the lend markets, the order
 * accounts of the trigger and recurring programs behind the venue's open escrows, the prediction program's position
 * accounts behind the desk's positions of the wallet) and reports how it went; a
 * fetcher that throws is reported `failed` with its error and the others still answer.
 */

/** One fetcher: a platform's reader of a wallet's positions. */
interface Fetcher {
  id: string;
  platformId: string;
  run(owner: PublicKey, p: AssetPricer, state: SimState): PortfolioElementJson[];
}

/** The platforms the simulator's portfolio reports on (GET /portfolio/v1/platforms). */
export const PORTFOLIO_PLATFORMS = Object.freeze([
  { id: 'wallet-tokens', name: 'Wallet', description: 'Tokens held in the wallet', defiLlamaId: null, link: 'https://jup.ag/portfolio' },
  { id: 'jupiter-exchange', name: 'Jupiter', description: 'Jupiter Exchange: limit and recurring orders', defiLlamaId: 'jupiter', link: 'https://jup.ag' },
  { id: 'jupiter-lend', name: 'Jupiter Lend', description: 'Jupiter Lend Earn', defiLlamaId: 'jupiter-lend', link: 'https://jup.ag/lend' },
  { id: PREDICTION_PLATFORM_ID, name: 'Jupiter Prediction', description: 'Jupiter prediction markets: open positions', defiLlamaId: null, link: 'https://jup.ag/prediction' },
]);

const FETCHERS: readonly Fetcher[] = [
  { id: 'wallet-tokens-solana-native', platformId: 'wallet-tokens', run: nativeSol },
  { id: 'wallet-tokens-solana', platformId: 'wallet-tokens', run: walletTokens },
  { id: 'jupiter-lend-earn', platformId: 'jupiter-lend', run: lendEarn },
  { id: 'jupiter-exchange-limit', platformId: 'jupiter-exchange', run: limitOrders },
  { id: 'jupiter-exchange-dca', platformId: 'jupiter-exchange', run: dcaOrders },
  { id: 'jupiter-prediction', platformId: PREDICTION_PLATFORM_ID, run: (owner, _p, state) => predictionPositions(owner, state) },
];

/** GET /portfolio/v1/positions/{address}: every fetcher of the asked platforms (all when none), its elements and report. */
export function portfolioPositions(state: SimState, address: string, platforms?: readonly string[]): Record<string, unknown> {
  const started = performance.now();
  const owner = new PublicKey(address);
  const pricer = new AssetPricer(state.venue);
  // Interest owed to the Earn vaults is paid first, so that the lend positions read as the lend API reports them.
  state.lend.accrueAll();
  // Markets past their close are settled first (their open orders refunded, losing positions closed), so that the
  // wallet and the prediction positions are read from the same state.
  state.prediction.refresh();
  const elements: PortfolioElementJson[] = [];
  const fetcherReports = FETCHERS.filter((f) => !platforms || platforms.includes(f.platformId)).map((f) => {
    const t0 = performance.now();
    try {
      elements.push(...f.run(owner, pricer, state));
      return { id: f.id, status: 'succeeded', duration: Math.round(performance.now() - t0) };
    } catch (err) {
      return { id: f.id, status: 'failed', duration: Math.round(performance.now() - t0), error: err instanceof Error ? err.message : String(err) };
    }
  });
  return {
    date: Math.floor(state.venue.clock.now()),
    owner: address,
    fetcherReports,
    elements,
    value: totalValue(elements.map((e) => e.value)),
    duration: Math.round(performance.now() - started),
    tokenInfo: { solana: pricer.tokenInfo },
  };
}

function nativeSol(owner: PublicKey, p: AssetPricer, state: SimState): PortfolioElementJson[] {
  const lamports = state.venue.chain.lamports(owner);
  // Native SOL is reported under the wrapped-SOL mint, as the spec's example does.
  return lamports > 0n ? [walletElement([p.asset(WSOL_MINT, lamports)])] : [];
}

/** The wallet's token accounts with a balance, jlTokens left to the lend fetcher (as their positions). */
function walletTokens(owner: PublicKey, p: AssetPricer, state: SimState): PortfolioElementJson[] {
  const byMint = new Map<string, bigint>();
  for (const acc of state.venue.chain.tokenAccountsOf(owner.toBase58())) {
    if (acc.amount === 0n || state.lend.marketOfJlToken(acc.mint)) continue;
    byMint.set(acc.mint, (byMint.get(acc.mint) ?? 0n) + acc.amount);
  }
  if (byMint.size === 0) return [];
  return [walletElement([...byMint].map(([mint, amount]) => p.asset(mint, amount)))];
}

/** One `borrowlend` element per Earn market the wallet holds jlTokens in: what they are worth in the underlying. */
function lendEarn(owner: PublicKey, p: AssetPricer, state: SimState): PortfolioElementJson[] {
  const now = state.venue.clock.now();
  return state.lend.list().flatMap((m) => {
    const shares = m.sharesOf(owner);
    if (shares === 0n) return [];
    const y = yieldOf(m.totalRateBps / 10_000);
    const supplied = p.asset(m.asset.mint, m.assetsFor(shares, now), { yields: [y] });
    return [{
      networkId: 'solana' as const,
      platformId: 'jupiter-lend',
      type: 'borrowlend' as const,
      label: 'Lending',
      name: `Earn ${m.symbol}`,
      value: supplied.value,
      netApy: y.apy,
      data: {
        value: supplied.value,
        suppliedAssets: [supplied],
        borrowedAssets: [],
        rewardAssets: [],
        suppliedValue: supplied.value,
        borrowedValue: 0,
        rewardValue: 0,
        suppliedYields: [[y]],
        borrowedYields: [],
        // Nothing is borrowed against an Earn deposit: full health.
        healthRatio: 1,
        contract: PROGRAM_IDS.jupiterLendEarn,
        ref: m.addresses.lending.toBase58(),
        sourceRefs: [{ name: 'Lending Market', address: m.addresses.lending.toBase58() }],
        link: 'https://jup.ag/lend/earn',
      },
    }];
  });
}

/** The order accounts of `product` behind the wallet's open escrows (one per order, however many escrows it has). */
function orderAccounts(state: SimState, owner: PublicKey, product: 'trigger' | 'recurring'): Array<{ address: string; data: Uint8Array }> {
  const seen = new Set<string>();
  const out: Array<{ address: string; data: Uint8Array }> = [];
  for (const e of state.escrows.list()) {
    if (e.product !== product || e.wallet !== owner.toBase58() || seen.has(e.authority)) continue;
    seen.add(e.authority);
    const acc = state.venue.chain.account(new PublicKey(e.authority));
    if (acc && acc.data.length > 0) out.push({ address: e.authority, data: acc.data });
  }
  return out;
}

/** One `trade` element (label LimitOrder) per open trigger order, read from the limit-order program's account. */
function limitOrders(owner: PublicKey, p: AssetPricer, state: SimState): PortfolioElementJson[] {
  return orderAccounts(state, owner, 'trigger').flatMap(({ address, data }) => {
    const o = decodeOrderAccount(data);
    if (!o || o.makingAmount === 0n) return [];
    return [tradeElement(p, {
      label: 'LimitOrder',
      name: 'Limit Order',
      order: address,
      program: PROGRAM_IDS.jupiterTrigger,
      link: 'https://jup.ag/limit',
      inputMint: o.inputMint.toBase58(),
      outputMint: o.outputMint.toBase58(),
      inputHeld: o.makingAmount,
      // A fill pays the maker at once: the order holds no output.
      outputHeld: 0n,
      initialInput: o.oriMakingAmount,
      withdrawnOutput: o.oriTakingAmount - o.takingAmount,
      expectedOutput: o.oriTakingAmount,
      filled: o.oriMakingAmount === 0n ? 0 : Number(o.oriMakingAmount - o.makingAmount) / Number(o.oriMakingAmount),
      createdAtMs: Number(o.createdAt) * 1000,
      ...(o.expiredAt !== null ? { expireAtMs: Number(o.expiredAt) * 1000 } : {}),
    })];
  });
}

/** One `trade` element (label DCA) per open recurring order, read from the DCA program's account. */
function dcaOrders(owner: PublicKey, p: AssetPricer, state: SimState): PortfolioElementJson[] {
  return orderAccounts(state, owner, 'recurring').flatMap(({ address, data }) => {
    const d = decodeDcaAccount(data);
    if (!d) return [];
    const inputHeld = d.inDeposited - d.inUsed - d.inWithdrawn;
    const outputHeld = d.outReceived - d.outWithdrawn;
    if (inputHeld <= 0n && outputHeld <= 0n) return [];
    return [tradeElement(p, {
      label: 'DCA',
      name: 'Recurring',
      order: address,
      program: PROGRAM_IDS.jupiterRecurring,
      link: 'https://jup.ag/recurring',
      inputMint: d.inputMint.toBase58(),
      outputMint: d.outputMint.toBase58(),
      inputHeld: inputHeld > 0n ? inputHeld : 0n,
      outputHeld: outputHeld > 0n ? outputHeld : 0n,
      initialInput: d.inDeposited,
      withdrawnOutput: d.outWithdrawn,
      filled: d.inDeposited === 0n ? 0 : Number(d.inUsed) / Number(d.inDeposited),
      createdAtMs: Number(d.createdAt) * 1000,
      recurring: { cycles: Number(d.inAmountPerCycle === 0n ? 0n : (d.inDeposited + d.inAmountPerCycle - 1n) / d.inAmountPerCycle), interval: Number(d.cycleFrequency) * 1000 },
    })];
  });
}
