import jsYaml, { FAILSAFE_SCHEMA, YAMLException, load, type Mark, type Type } from 'js-yaml';
import { ConfigError } from './errors.js';

// The YAML 1.2 core schema (no timestamps, no YAML 1.1 booleans such as `yes`), whose integers are decimal, 0o octal
// or 0x hex (js-yaml's own core integers also take 0b binary), with merge keys (`<<: *anchor` shares params).
const jsTypes = (jsYaml as unknown as { types: Record<'null' | 'bool' | 'float' | 'merge', Type> }).types;
const CORE_INT = new jsYaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: unknown) => typeof data === 'string' && /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/.test(data),
  construct: (data: string) => (data.startsWith('0o') ? parseInt(data.slice(2), 8) : data.startsWith('0x') ? parseInt(data.slice(2), 16) : parseInt(data, 10)),
  predicate: (v: unknown) => typeof v === 'number' && Number.isInteger(v),
});
const CONFIG_SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: [jsTypes.null, jsTypes.bool, CORE_INT, jsTypes.float, jsTypes.merge] });

/** Most times one collection may appear in the data once aliases are expanded: shared params, never a billion laughs. */
export const MAX_ALIAS_USES = 100;

// The last text read and its data: `run` reads the same text twice (its user strategies, then the whole config).
let last: { text: string; data: unknown } | undefined;

/**
 * The config text as data (js-yaml on the YAML 1.2 core schema, with merge keys). A syntax error is a ConfigError
 * naming the file, the line and the column; so is a collection an alias repeats more than MAX_ALIAS_USES times or
 * one that contains itself. The data is frozen: callers share it.
 */
export function parseYaml(text: string, file: string): unknown {
  if (last?.text === text) return last.data;
  let data: unknown;
  try {
    data = load(text, { schema: CONFIG_SCHEMA, filename: file }) ?? null;
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    // js-yaml places every error but one: "expected a single document in the stream, but found more".
    const mark = err.mark as Mark | undefined;
    throw new ConfigError(file, [{ path: mark ? `line ${mark.line + 1}, column ${mark.column + 1}` : secondDocument(text), message: err.reason }]);
  }
  const aliasProblem = freezeBounded(data, new Map(), new Set());
  if (aliasProblem !== undefined) throw new ConfigError(file, [{ path: '(yaml)', message: aliasProblem }]);
  last = { text, data };
  return data;
}

/**
 * Freezes the data, walking it as its readers will (an alias is the same object wherever it appears). Stops with
 * the reason at a collection met more than MAX_ALIAS_USES times or inside itself: either would make every later
 * walk of the config (the schema, the secret scan) explode or never end.
 */
function freezeBounded(value: unknown, uses: Map<object, number>, path: Set<object>): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (path.has(value)) return 'an alias refers to a collection that contains it';
  const n = (uses.get(value) ?? 0) + 1;
  if (n > MAX_ALIAS_USES) return `an alias repeats a collection more than ${MAX_ALIAS_USES} times (a resource exhaustion attack, or share fewer params through anchors)`;
  uses.set(value, n);
  // Each use is walked again, so a nested alias counts once per path to it, as the readers will meet it; the bound
  // stops the walk after at most MAX_ALIAS_USES visits of each collection.
  if (n === 1) Object.freeze(value);
  path.add(value);
  for (const v of Object.values(value)) {
    const problem = freezeBounded(v, uses, path);
    if (problem !== undefined) return problem;
  }
  path.delete(value);
  return undefined;
}

/** Where the second document of a stream starts: the first `---` line after some content. */
function secondDocument(text: string): string {
  let content = false;
  for (const [i, line] of text.split('\n').entries()) {
    const marker = /^---(\s|$)/.test(line);
    if (marker && content) return `line ${i + 1}, column 1`;
    if (marker ? /^---\s+[^#\s]/.test(line) : line.trim() !== '' && !/^[#%]/.test(line)) content = true;
  }
  return '(yaml)';
}
