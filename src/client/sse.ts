/**
 * Server-sent events: the response body passed through to the caller chunk by chunk, each
 * complete event inspected on the way (one JSON-RPC response per event). Internal.
 */
import { closeRemaining, errorsFromValue, record } from './exchange.js';
import type { Exchange } from './exchange.js';
import { SseReader, isParseFailure, readJsonBody } from '../protocol/index.js';
import type { ClientTelemetry } from './telemetry.js';
import type { AapFetchOptions } from './types.js';

/**
 * SSE: each event is one JSON-RPC response. The body is passed through, chunk by chunk, as the
 * caller reads it, and each complete event is inspected before the caller sees its last byte, so
 * an error event is recorded by the time the SDK throws for it. Nothing is read ahead or
 * buffered beyond one unfinished event, and cancelling the returned body cancels the dealer's
 * stream (a clone would keep reading an endless stream after the caller stopped).
 *
 * @returns a new Response with the same status, status text and headers (its `url` is empty).
 */
export function inspectStream(
  response: Response,
  exchange: Exchange,
  telemetry: ClientTelemetry,
  options: AapFetchOptions,
  maxBodyBytes: number,
): Response {
  const source = response.body;
  if (source === null) {
    closeRemaining(exchange, telemetry, response, true);
    return response;
  }
  const reader = source.getReader();
  let seen = 0;
  let finished = false;
  // The Response handed back, which the errors are registered under (set once it exists).
  const returned: { response?: Response } = {};
  const events = new SseReader(({ data }) => {
    const out = returned.response;
    if (out === undefined) return;
    const read = readJsonBody(data, { maxBytes: maxBodyBytes });
    if (isParseFailure(read)) return;
    const errs = errorsFromValue(read.value, out, exchange, telemetry, false);
    if (errs.length > 0) record(errs, out, exchange, options);
  }, maxBodyBytes);
  const finish = (): void => {
    if (finished) return;
    finished = true;
    try {
      events.end();
    } catch {
      // Inspection must never break the caller's stream.
    }
    closeRemaining(exchange, telemetry, response, true);
  };
  const inspect = (chunk: Uint8Array): void => {
    // A long stream is inspected up to a bound; it is never stopped or altered.
    if (finished || seen > maxBodyBytes * 16) return;
    seen += chunk.byteLength;
    try {
      events.push(chunk);
    } catch {
      // Inspection must never break the caller's stream.
    }
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          finish();
          controller.close();
          return;
        }
        inspect(value);
        controller.enqueue(value);
      } catch (err) {
        finish();
        controller.error(err);
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  }, { highWaterMark: 0 }); // read from the dealer only as the caller reads: no read-ahead
  returned.response = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  return returned.response;
}
