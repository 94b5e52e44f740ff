/**
 * Streaming replies (`SendStreamingMessage` / `message/stream`): a text/event-stream whose events
 * each carry one JSON-RPC response (A2A v1.0 §9.4). One outcome per call id: the first error seen
 * for the id (an `error` member, a DMC-12 result error or a failed status update), else success.
 */
import type { CallOutcome } from './types.js';
import { errorText } from './extract.js';
import { type BodyLimits, DEFAULT_MAX_BYTES, type ParseFailure, decodeBody, parseFailure, readJsonBody } from './json-body.js';
import { type CallFamily, isResponseObject, parseCall } from './parse-response.js';

/** Options of `parseSseResponse`. */
export interface ParseSseOptions extends BodyLimits {
  /** See `ParseResponseOptions.family`. */
  family?: CallFamily;
  /** Most events read; the rest are ignored. Default 10 000. */
  maxEvents?: number;
}

/**
 * Parses a complete SSE body into one `CallOutcome` per JSON-RPC id, in order of first
 * appearance. `data:` lines of an event are joined with `\n` (SSE rules); events whose data is
 * not a JSON-RPC response (comments, keep-alives, `[DONE]`) are skipped. Never throws; gives a
 * `ParseFailure` for an unreadable body (`too-large`, `invalid-utf8`) or a stream with no
 * JSON-RPC response at all (`not-jsonrpc`). `maxBytes` caps the whole body, `maxDepth` each event.
 */
export function parseSseResponse(body: string | Uint8Array, options: ParseSseOptions = {}): CallOutcome[] | ParseFailure {
  try {
    const text = decodeBody(body, options.maxBytes ?? DEFAULT_MAX_BYTES);
    if (typeof text !== 'string') return text;
    const byId = new Map<string, CallOutcome>();
    const maxEvents = options.maxEvents ?? 10_000;
    let events = 0;
    for (const block of text.split(/\r\n\r\n|\n\n|\r\r/)) {
      if (++events > maxEvents) break;
      const data = block
        .split(/\r\n|\n|\r/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
        .join('\n');
      if (data.length === 0) continue;
      const read = readJsonBody(data, { maxDepth: options.maxDepth, maxBytes: Number.MAX_SAFE_INTEGER });
      if ('parseError' in read || !isResponseObject(read.value)) continue;
      const outcome = parseCall(read.value, options.family);
      const key = outcome.id === null ? 'null' : `${typeof outcome.id}:${String(outcome.id)}`;
      const seen = byId.get(key);
      if (!seen || (seen.ok && !outcome.ok)) byId.set(key, outcome);
    }
    if (byId.size === 0) return parseFailure('not-jsonrpc', 'event stream holds no JSON-RPC response');
    return [...byId.values()];
  } catch (err) {
    return parseFailure('not-jsonrpc', `unreadable event stream: ${errorText(err)}`);
  }
}
