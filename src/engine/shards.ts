/** A strategy's cadence. */
export type Cadence = { every: number } | { cron: string; tz?: string | undefined };

/** A shard: instances of one cadence evaluated together, by one job per tick. */
export interface ShardPlanEntry {
  /** Stable for the same cadence and shard count: `<cadence tag>.<index>of<count>`. */
  key: string;
  cadence: Cadence;
  /** Evaluated also on every new price snapshot. */
  reactive: boolean;
  instances: string[];
}

/** Instances per shard, unless the config says otherwise. */
export const DEFAULT_SHARD_SIZE = 500;

/**
 * Groups instances by cadence and hashes each group's instances into ceil(n / maxPerShard) shards. Every process
 * with the same config computes the same plan, so the job a scheduler queues names the same instances wherever it
 * runs; an instance stays in its shard while the group's shard count does not change.
 */
export function planShards(instances: ReadonlyArray<{ id: string; cadence: Cadence; reactive?: boolean }>, maxPerShard = DEFAULT_SHARD_SIZE): ShardPlanEntry[] {
  const groups = new Map<string, { cadence: Cadence; ids: string[]; reactive: boolean }>();
  for (const i of instances) {
    // Reactive instances have shards of their own: a new price snapshot wakes only them.
    const tag = `${i.reactive ? 'r' : ''}${cadenceTag(i.cadence)}`;
    const g = groups.get(tag) ?? { cadence: i.cadence, ids: [], reactive: i.reactive === true };
    g.ids.push(i.id);
    groups.set(tag, g);
  }
  const out: ShardPlanEntry[] = [];
  for (const [tag, g] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const count = Math.max(1, Math.ceil(g.ids.length / Math.max(1, maxPerShard)));
    const shards = Array.from({ length: count }, (_, n) => ({ key: `${tag}.${n}of${count}`, cadence: g.cadence, reactive: g.reactive, instances: [] as string[] }));
    for (const id of g.ids) shards[fnv1a(id) % count]!.instances.push(id);
    out.push(...shards.filter((s) => s.instances.length > 0));
  }
  return out;
}

/** A short tag naming a cadence in shard keys: `e5000` for every 5 s, `c<hash>` for a cron pattern and zone. */
export function cadenceTag(c: Cadence): string {
  return 'every' in c ? `e${c.every}` : `c${fnv1a(`${c.cron}|${c.tz ?? ''}`).toString(36)}`;
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i += 1) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
