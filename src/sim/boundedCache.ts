/**
 * A memo of values that depend on their key alone, holding at most `max` entries: when full, the oldest is dropped
 * first. The simulator's hot paths keep derived values in these (key texts, parsed keys, PDAs, blockhashes, pool
 * names, verified signatures) so that what is recomputed per request is computed once.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Keeps `value` under `key` and returns it. */
  set(key: K, value: V): V {
    if (this.map.size >= this.max && !this.map.has(key)) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
    return value;
  }

  /** The value kept under `key`, or `make()`'s, kept from then on. */
  getOr(key: K, make: () => V): V {
    const known = this.map.get(key);
    return known !== undefined ? known : this.set(key, make());
  }
}
