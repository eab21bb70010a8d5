/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family: its TYPE, HELP and samples. */
export interface Family {
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/**
 * A strict parser of the Prometheus text format (version 0.0.4): every line is a HELP, a TYPE or a sample; every
 * sample belongs to a family declared by TYPE before it (histograms' _bucket, _sum, _count included); label values
 * are quoted and escaped; values are numbers (or NaN, +Inf, -Inf); a histogram's buckets are cumulative and end with
 * le="+Inf" equal to its _count. Throws on the first violation, naming the line.
 */
export function parsePrometheus(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition does not end with a newline');
  lines.forEach((line, i) => {
    const where = `line ${i + 1}: ${JSON.stringify(line)}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) throw new Error(`${where}: a comment that is neither HELP nor TYPE`);
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name`);
      const f = families.get(name) ?? { type: 'untyped', help: '', samples: [] };
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type`);
        if (f.samples.length > 0) throw new Error(`${where}: TYPE after samples`);
        f.type = rest;
      } else f.help = rest;
      families.set(name, f);
      return;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`${where}: not a sample`);
    const name = m[1]!;
    const labels: Record<string, string> = {};
    let rest = m[3] ?? '';
    while (rest.length > 0) {
      const l = LABEL.exec(rest);
      if (!l) throw new Error(`${where}: bad labels`);
      labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
      rest = rest.slice(l[0].length);
    }
    const raw = m[4]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
    if (!/^(NaN|[+-]Inf|-?\d+(\.\d+)?([eE][+-]?\d+)?)$/.test(raw)) throw new Error(`${where}: bad value`);
    const family = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, ''));
    if (!family || (family !== families.get(name) && family.type !== 'histogram' && family.type !== 'summary')) throw new Error(`${where}: a sample of no declared family`);
    family.samples.push({ name, labels, value });
  });
  for (const [name, f] of families) {
    if (f.type !== 'histogram') continue;
    const series = new Map<string, Sample[]>();
    for (const s of f.samples.filter((x) => x.name === `${name}_bucket`)) {
      const { le, ...rest } = s.labels;
      if (le === undefined) throw new Error(`${name}: a bucket without le`);
      const key = JSON.stringify(rest);
      series.set(key, [...(series.get(key) ?? []), s]);
    }
    for (const [key, buckets] of series) {
      for (let i = 1; i < buckets.length; i += 1) if (buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${name}${key}: buckets not cumulative`);
      const last = buckets.at(-1)!;
      const count = f.samples.find((x) => x.name === `${name}_count` && JSON.stringify(x.labels) === key);
      if (last.labels.le !== '+Inf' || count?.value !== last.value) throw new Error(`${name}${key}: the +Inf bucket is not the count`);
    }
  }
  return families;
}
