import { knownBySymbol, WSOL_MINT } from '../lib/mints.js';
import type { AnyStrategy, Watches } from '../sdk/strategy.js';

/** An instance as far as its watches go. */
type Watching = { readonly definition: Pick<AnyStrategy, 'watches'>; readonly params: unknown };

const byShard = new WeakMap<readonly Watching[], readonly string[]>();

/**
 * The mints a shard's instances watch (symbols resolved, as the feeds resolve them), whose price history its
 * evaluation reads. Worked out once per shard (the runner's shards keep their instance lists), not per evaluation:
 * a shard of 10,000 instances reads each mint's history once, and asks no instance again.
 */
export function watchedMints(instances: readonly Watching[]): readonly string[] {
  const known = byShard.get(instances);
  if (known) return known;
  const mints = new Set<string>();
  for (const i of instances) {
    let watched: readonly string[] | undefined;
    try {
      watched = i.definition.watches(i.params).mints;
    } catch {
      // The config loader already called watches() with these params; one that throws now watches nothing here.
      continue;
    }
    for (const m of watched ?? []) mints.add(knownBySymbol(m)?.mint ?? m);
  }
  const out = Object.freeze([...mints].sort());
  byShard.set(instances, out);
  return out;
}

const predictionByShard = new WeakMap<readonly Watching[], boolean>();

/** Whether any of a shard's instances watches prediction markets or categories (worked out once per shard). */
export function watchesPrediction(instances: readonly Watching[]): boolean {
  const known = predictionByShard.get(instances);
  if (known !== undefined) return known;
  const out = instances.some((i) => {
    try {
      const w = i.definition.watches(i.params);
      return (w.predictionMarkets?.length ?? 0) > 0 || (w.predictionCategories?.length ?? 0) > 0;
    } catch {
      return false;
    }
  });
  predictionByShard.set(instances, out);
  return out;
}

/** The union of what every strategy watches, symbols resolved to mints: what the feeds fetch (SOL's price always). */
export function watchedSets(watches: readonly Watches[]): { mints: Set<string>; categories: Set<string>; markets: Set<string> } {
  const mints = new Set<string>([WSOL_MINT]);
  const categories = new Set<string>();
  const markets = new Set<string>();
  for (const w of watches) {
    for (const m of w.mints ?? []) mints.add(knownBySymbol(m)?.mint ?? m);
    for (const c of w.predictionCategories ?? []) categories.add(c);
    for (const m of w.predictionMarkets ?? []) markets.add(m);
  }
  return { mints, categories, markets };
}

