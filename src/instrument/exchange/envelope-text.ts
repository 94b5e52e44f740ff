/**
 * The JSON text of a built AAP envelope's `data` member from a template prepared once per (code,
 * form, retryable) (issue 26, decision 3): the envelope is built for every repaired AapError, and
 * `JSON.stringify` of its data (an ErrorInfo and the typed payload, ~500 characters) was a large
 * part of the splice that puts it on the wire. Only `message`, `error_id` and `created_at` vary
 * between the envelopes of one key, so the text is the template's fixed parts with those three
 * written in. Envelopes with `details` are not templated (their shape varies); they keep
 * `JSON.stringify`.
 *
 * The template is made by building an envelope with marker values through the same builder, and
 * kept only when writing the markers back into it gives `JSON.stringify` of that envelope's data
 * exactly; test/instrument/envelope-text.test.ts compares the two for every code and form.
 */
import { AAP_ERROR_TYPE_URL } from '../../protocol/index.js';
import { isObject, own } from '../../protocol/extract.js';
import type { AapErrorLike } from './protocol-bridge.js';

/** Marker values: printable, no JSON escapes, and unlike anything else an envelope holds. */
const MARK = { message: 'aap-triage template message 9f1c', errorId: 'err_9f1c9f1c9f1c9f1c9f1c9f1c9f1c9f1c', createdAt: '2001-02-03T04:05:06Z' } as const;
/** Which value goes where, in the order of the template's gaps. */
type Slot = 'message' | 'error_id' | 'created_at';
interface Template {
  parts: string[];
  slots: Slot[];
}

/** Templates by `code\0form\0retryable`; null: this key cannot be templated (JSON.stringify is used). */
const templates = new Map<string, Template | null>();

function split(text: string): Template | null {
  const quoted: Array<[string, Slot]> = [
    [JSON.stringify(MARK.message), 'message'],
    [JSON.stringify(MARK.errorId), 'error_id'],
    [JSON.stringify(MARK.createdAt), 'created_at'],
  ];
  const parts: string[] = [];
  const slots: Slot[] = [];
  let at = 0;
  for (;;) {
    let next = -1;
    let slot: Slot = 'message';
    let len = 0;
    for (const [q, s] of quoted) {
      const i = text.indexOf(q, at);
      if (i >= 0 && (next < 0 || i < next)) {
        next = i;
        slot = s;
        len = q.length;
      }
    }
    if (next < 0) break;
    parts.push(text.slice(at, next));
    slots.push(slot);
    at = next + len;
  }
  parts.push(text.slice(at));
  return slots.length > 0 ? { parts, slots } : null;
}

/** The typed AAP payload of an envelope's data (2.0: the element with the AAP type URL; released: data itself). */
function payloadOf(data: unknown): Record<string, unknown> | undefined {
  const p = Array.isArray(data) ? data.find((d) => isObject(d) && own(d, '@type') === AAP_ERROR_TYPE_URL) : data;
  return isObject(p) ? p : undefined;
}

function fill(t: Template, payload: Record<string, unknown>): string | null {
  const message = own(payload, 'message');
  const errorId = own(payload, 'error_id');
  const createdAt = own(payload, 'created_at');
  if (typeof message !== 'string' || typeof errorId !== 'string' || typeof createdAt !== 'string') return null;
  const values = { message: JSON.stringify(message), error_id: JSON.stringify(errorId), created_at: JSON.stringify(createdAt) };
  let out = t.parts[0] as string;
  for (let i = 0; i < t.slots.length; i++) out += values[t.slots[i] as Slot] + (t.parts[i + 1] as string);
  return out;
}

/**
 * The JSON text of `envelope.data` (an envelope `build` made from `input` in `form`), from the
 * template of its key, or null when there is none (details present, or the template could not be
 * made): the caller then uses `JSON.stringify`. `build` is the envelope builder
 * (buildAapErrorObject), called once per key with marker values. Never throws.
 */
export function envelopeDataText(
  input: AapErrorLike,
  form: '2.0' | 'released',
  envelope: Record<string, unknown>,
  build: (input: AapErrorLike, form: '2.0' | 'released', now: Date) => Record<string, unknown> | undefined,
): string | null {
  if (input.details !== undefined) return null;
  const payload = payloadOf(envelope.data);
  if (!payload || Object.hasOwn(payload, 'details')) return null;
  const key = `${input.code}\u0000${form}\u0000${String(input.retryable)}`;
  let t = templates.get(key);
  if (t === undefined) {
    t = null;
    try {
      const marked = build({ code: input.code, aapMessage: MARK.message, message: MARK.message, details: undefined, retryable: input.retryable, errorId: MARK.errorId, createdAt: MARK.createdAt }, form, new Date(0));
      const markedPayload = marked ? payloadOf(marked.data) : undefined;
      if (marked && markedPayload && !Object.hasOwn(markedPayload, 'details')) {
        const text = JSON.stringify(marked.data);
        const candidate = split(text);
        if (candidate && fill(candidate, markedPayload) === text) t = candidate;
      }
    } catch {
      t = null;
    }
    templates.set(key, t);
  }
  return t ? fill(t, payload) : null;
}
