// What a config error says beyond zod's words: that a field is missing (not "expected a number"), and for an unknown
// field the known name nearest to it ("did you mean"). Both read the schema and the data the issue is about: the
// config loader's (src/config/load.ts) and a user strategy's thread (src/engine/isolation/thread.ts).
import type { z } from 'zod';

/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The known name a mistyped one most likely meant, if any is close: compared without case, within a third of its
 * length (at least 2 edits), or one of the two a prefix of the other (`maxNotionalUSD` for `maxNotionalUsdPerIntent`,
 * 4 letters at least); the nearest by edit distance, the first known on a tie.
 */
export function nearestName(typed: string, known: Iterable<string>): string | undefined {
  const t = typed.toLowerCase();
  const limit = Math.max(2, Math.floor(t.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    if (name === typed) continue;
    const k = name.toLowerCase();
    const distance = levenshtein(t, k);
    const prefix = Math.min(t.length, k.length) >= 4 && (k.startsWith(t) || t.startsWith(k));
    if (distance > limit && !prefix) continue;
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}

/** `; did you mean "x"?` for an unknown name, or nothing when no known name is near it. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const near = nearestName(typed, known);
  return near === undefined ? '' : `; did you mean ${JSON.stringify(near)}?`;
}

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: unknown): Def | undefined => (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** The schemas a schema stands for once its wrappers (optional, default, pipe, union, lazy, ...) are taken off. */
function unwrap(schema: unknown, depth = 0): unknown[] {
  const def = defOf(schema);
  if (def === undefined || depth > 32) return [];
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return unwrap(def.innerType, depth + 1);
    case 'pipe':
      return unwrap(def.in, depth + 1);
    case 'lazy':
      return unwrap((def.getter as () => unknown)(), depth + 1);
    case 'union':
      return (def.options as unknown[]).flatMap((o) => unwrap(o, depth + 1));
    case 'intersection':
      return [...unwrap(def.left, depth + 1), ...unwrap(def.right, depth + 1)];
    default:
      return [schema];
  }
}

/** The schemas at one step of a path below a schema (a field, an element, a record's value). */
function step(schema: unknown, key: PropertyKey): unknown[] {
  return unwrap(schema).flatMap((s) => {
    const def = defOf(s)!;
    if (def.type === 'object') {
      const shape = def.shape as Record<string, unknown>;
      return typeof key === 'string' && Object.hasOwn(shape, key) ? [shape[key]] : [];
    }
    if (def.type === 'array') return [def.element];
    if (def.type === 'record') return [def.valueType];
    if (def.type === 'tuple' && typeof key === 'number') return [(def.items as unknown[])[key]].filter((x) => x !== undefined);
    return [];
  });
}

/** The field names the object at `path` of a schema knows (every branch of a union), in the schema's order. */
export function knownFields(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  let at: unknown[] = [schema];
  for (const key of path) at = at.flatMap((s) => step(s, key));
  const names = new Set<string>();
  for (const s of at.flatMap((x) => unwrap(x))) {
    const def = defOf(s)!;
    if (def.type === 'object') for (const k of Object.keys(def.shape as object)) names.add(k);
  }
  return [...names];
}

/** Whether the field at `path` is absent from the data (or empty: null) while the object holding it is there. */
export function isMissing(data: unknown, path: ReadonlyArray<PropertyKey>): boolean {
  if (path.length === 0) return data === undefined || data === null;
  let parent: unknown = data;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null) return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  if (typeof parent !== 'object' || parent === null || Array.isArray(parent)) return false;
  // An empty value (`amount:` in YAML is null) is as missing as no key at all.
  return (parent as Record<PropertyKey, unknown>)[path[path.length - 1]!] == null;
}

/**
 * What to say of a missing field: `missing`, with what it takes when the schema says so (`missing (expected
 * number)`, `missing (expected an integer amount ...)`): zod's message for it, "Invalid input:" and "received
 * undefined" (or null) dropped.
 */
export function missingMessage(message: string): string {
  const what = message.replace(/^Invalid (input|option): /, '').replace(/,? received (undefined|null)$/, '');
  return what === '' || what.startsWith('missing') ? what || 'missing' : `missing (${what})`;
}
