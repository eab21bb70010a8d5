/** JSON that round-trips bigint: `{"$n":"123"}` on the wire, bigint in memory. For our own stored records only. */

const TAG = '$n';

/** Serialises a value, writing bigints as `{"$n": "<digits>"}`. */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { [TAG]: v.toString() } : v));
}

/** Parses text written by encodeJson, restoring bigints. */
export function decodeJson(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const n = (v as Record<string, unknown>)[TAG];
      if (keys.length === 1 && typeof n === 'string' && /^-?\d+$/.test(n)) return BigInt(n);
    }
    return v;
  });
}
