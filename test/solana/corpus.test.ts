import { describe, expect, it } from 'vitest';
import { WSOL_MINT } from '../../src/lib/mints.js';
import { accountKeysOf, loadRecorded, type Recorded } from '../helpers/corpus.js';
import { fixtureIds, readFixture } from '../helpers/corpusFixture.js';
import { guardRecorded, rulesOf } from '../helpers/corpusGuard.js';
import { twinsOf } from '../helpers/corpusTwins.js';

/**
 * Corpus transactions today's guard refuses for a reason someone is fixing now, each with the feature it waits for.
 * Their tests are written as they should be (the honest transaction passes, each twin is refused with its rule) and
 * skipped until the feature is merged: remove the entry then. Empty: every transaction of the corpus is judged.
 */
export const AWAITING: Readonly<Record<string, string>> = Object.freeze({});

// Real mainnet transactions (test/fixtures/mainnet, SOURCES.md says where each came from and what is reconstructed),
// judged by the real guard with the policy the keeper derives from the intent that would have asked for them, over
// a node that answers from the recording: the recorded (or reconstructed) inner instructions and balances are the
// simulation's, so the fund-flow, balance and payout rules run on them.
describe('the guard on real mainnet transactions', { timeout: 60_000 }, () => {
  it('holds a well-formed corpus: every fixture parses and every awaiting entry names one', () => {
    const ids = fixtureIds();
    expect(ids.length).toBeGreaterThanOrEqual(15);
    for (const id of ids) expect(() => readFixture(id)).not.toThrow();
    for (const id of Object.keys(AWAITING)) expect(ids).toContain(id);
  });

  for (const id of fixtureIds()) {
    const waiting = AWAITING[id];
    const test = waiting ? it.skip : it;
    const label = waiting ? ` (awaiting: ${waiting})` : '';

    const refused = readFixture(id).refusedFor;
    if (refused) {
      test(`${id}: the real transaction is refused with ${refused.rules.join(', ')} (${refused.why})${label}`, async () => {
        expect(rulesOf(await guardRecorded(loadRecorded(id)))).toEqual(refused.rules);
      });
      continue;
    }

    test(`${id}: the honest transaction passes for its intent, the wallet changing as the recording says${label}`, async () => {
      const r = loadRecorded(id);
      const report = await guardRecorded(r);
      expect(report.violations).toEqual([]);
      expect(report.simulated).toBe(true);
      // The node answered the recording: what the guard saw the wallet gain and spend is what the meta's balances say.
      const seen = new Map(report.changes.tokens.map((t) => [t.mint, t.delta]));
      const solSeen = report.changes.lamports + (seen.get(WSOL_MINT) ?? 0n);
      seen.delete(WSOL_MINT);
      const recorded = recordedChanges(r);
      expect({ sol: solSeen, tokens: Object.fromEntries(seen) }).toEqual(recorded);
    });

    const twins = twinsOf(loadRecorded(id));
    for (const twin of twins) {
      test(`${id}: ${twin.name} is refused with ${twin.rules.join(', ')}${label}`, async () => {
        const r = loadRecorded(id);
        const report = await guardRecorded(twin.make(r));
        expect(rulesOf(report)).toEqual(twin.rules);
      });
    }
  }
});

/**
 * The wallet's changes as the recorded meta says them: SOL as the lamports of the wallet and of its token accounts
 * plus its wrapped SOL, every other mint as its token balances (accounts the wallet owns before or after).
 */
function recordedChanges(r: Recorded): { sol: bigint; tokens: Record<string, bigint> } {
  const { meta } = r.fixture;
  const keys = accountKeysOf(r.tx, r.tables);
  const me = r.wallet.toBase58();
  const mine = new Set<number>([keys.indexOf(me)]);
  for (const b of [...meta.preTokenBalances, ...meta.postTokenBalances]) if (b.owner === me) mine.add(b.accountIndex);
  let sol = 0n;
  const tokens: Record<string, bigint> = {};
  for (const i of mine) sol += BigInt(meta.postBalances[i]!) - BigInt(meta.preBalances[i]!);
  for (const [sign, balances] of [[-1n, meta.preTokenBalances], [1n, meta.postTokenBalances]] as const) {
    for (const b of balances) {
      if (b.owner !== me || b.mint === WSOL_MINT) continue;
      tokens[b.mint] = (tokens[b.mint] ?? 0n) + sign * BigInt(b.uiTokenAmount.amount);
    }
  }
  for (const [mint, delta] of Object.entries(tokens)) if (delta === 0n) delete tokens[mint];
  return { sol, tokens };
}
