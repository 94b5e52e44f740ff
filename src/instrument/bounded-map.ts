/**
 * Bounds of the instrumentation's in-memory maps, kept in insertion order: the oldest entries
 * sit at the front. Reaching the front walks over every slot V8 has not yet compacted after a
 * delete (retry-tracker.ts says what that cost), so callers that evict often drop many at once.
 */

/** Deletes the `n` oldest entries of `map` (all of them when it holds fewer), in one walk. */
export function dropOldest<K, V>(map: Map<K, V>, n: number): void {
  let left = Math.min(n, map.size);
  for (const k of map.keys()) {
    if (left-- <= 0) break;
    map.delete(k);
  }
}

/** Sets `key` → `value` in `map`; a new key first drops the oldest entry when `map` already holds `max`. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (map.size >= max && !map.has(key)) dropOldest(map, map.size - max + 1);
  map.set(key, value);
}

