/**
 * The stored JSON-array columns (`retry_flags`, `violations`, `conformance`) read back: an array,
 * or `[]` for null, empty or unreadable text (a row is shown, never dropped, for a bad column).
 */
export function parseJsonArray<T>(text: string | null | undefined): T[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
}
