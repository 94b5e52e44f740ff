/**
 * Pairing (DESIGN §2, first stage): which answer of an exchange belongs to which call. JSON-RPC
 * 2.0 §6: a batch's replies come in any order and are matched by id (`1` and `"1"` differ);
 * notifications get none; a reply with id null answers a request that could not be read. Pure:
 * plain data in, plain data out; the exchange keeps its own state per call and hands it in.
 */
import type { RequestCall } from '../../protocol/parse-request.js';
import type { CallOutcome } from '../../protocol/types.js';

/** One classified answer of the response: what the completion stage made of one reply. */
export interface Answer {
  outcome: CallOutcome;
  /** Conformance rule ids the host's reply broke. */
  conformance: string[];
}

/** An answer's rule list when it broke none: shared by every such answer, frozen (a list that gains a rule is a fresh array). */
export const NO_RULES: string[] = Object.freeze([]) as unknown as string[];

/** What the exchange knows of its HTTP side. */
export interface PairFacts {
  /** The response's HTTP status. */
  status: number;
  /** The request body was a JSON array. */
  batch: boolean;
  /** The request was a POST (a JSON-RPC call was meant, even if its body could not be read). */
  post: boolean;
}

/** A call (or an answer no call claims) with what answered it. */
export interface Paired<C> {
  /** The exchange's own state of the call; null for an answer whose id matches no call. */
  slot: C | null;
  /** Position among the exchange's calls (answers no call claims come after them): the audit cap's measure. */
  index: number;
  /** The answer, or null when none came (a success with no body to inspect, or no reply at all). */
  answer: Answer | null;
  /**
   * The batch's size when one error answered the whole batch (413, a 400 without per-call
   * answers, one error with id null for an array): the retry tracker keys it apart from a single
   * call. 0 otherwise.
   */
  batchOf: number;
}

/**
 * Whether the answer failed the batch as a whole: no JSON-RPC answer at all with an HTTP error
 * status, or a single error with id null for a batch of several calls.
 */
function batchFailed(answers: readonly Answer[], status: number): boolean {
  if (answers.length === 0) return status >= 400;
  if (answers.length !== 1) return false;
  const only = (answers[0] as Answer).outcome;
  return !only.ok && only.id === null;
}

/**
 * Pairs `answers` (response order) with `calls` (the request's calls that expect a reply, body
 * order; a `call` of null is a request that could not be read). Linear in the batch size, even
 * when a hostile batch repeats one id thousands of times. Returns the calls to record, in order:
 * every call, then the answers no call claims; a call that got no answer is still recorded (a
 * success, or the HTTP status's error). A whole-batch failure is one entry, for the first call.
 * A POST whose body could not be read, answered with an HTTP error page and no JSON-RPC reply,
 * is one entry too, so its row does not depend on the body's size.
 */
export function pair<C extends { readonly call: RequestCall | null }>(calls: readonly C[], answers: readonly Answer[], facts: PairFacts): Paired<C>[] {
  if (facts.batch && calls.length > 1 && batchFailed(answers, facts.status)) {
    return [{ slot: calls[0] as C, index: 0, answer: answers[0] ?? null, batchOf: calls.length }];
  }
  const answerOf: (Answer | null)[] = new Array<Answer | null>(calls.length).fill(null);
  const extra: Paired<C>[] = [];
  const only = calls.length === 1 ? calls[0] : undefined;
  if (only?.call && answers.length === 1 && only.call.id === (answers[0] as Answer).outcome.id) {
    // The common case: one call, one reply with its id.
    answerOf[0] = answers[0] as Answer;
  } else if (answers.length > 0) {
    // Calls by id (a Map keys by SameValueZero: `1` and `"1"` differ, as JSON-RPC ids do; no key
    // text is built per call): an id's only call as its index, or, for an id the batch repeats,
    // its calls with a cursor to the first unanswered one.
    const byId = new Map<string | number | null, number | { list: number[]; next: number }>();
    for (let i = 0; i < calls.length; i++) {
      const call = (calls[i] as C).call;
      if (!call) continue;
      const entry = byId.get(call.id);
      if (entry === undefined) byId.set(call.id, i);
      else if (typeof entry === 'number') byId.set(call.id, { list: [entry, i], next: 0 });
      else entry.list.push(i);
    }
    for (const a of answers) {
      const entry = byId.get(a.outcome.id);
      let target: number | undefined;
      if (typeof entry === 'number') {
        if (answerOf[entry] === null) target = entry;
      } else if (entry) {
        while (entry.next < entry.list.length && answerOf[entry.list[entry.next] as number] !== null) entry.next++;
        target = entry.list[entry.next];
      }
      // A single call answered with id null (parse / invalid-request errors) is that call's answer.
      if (target === undefined && a.outcome.id === null && calls.length + extra.length === 1 && answerOf[0] === null) target = 0;
      if (target === undefined) extra.push({ slot: null, index: calls.length + extra.length, answer: a, batchOf: 0 });
      else answerOf[target] = a;
    }
  }
  const unreadFailed = facts.status >= 400 && facts.post && answers.length === 0;
  const out: Paired<C>[] = [];
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i] as C;
    const answer = answerOf[i] as Answer | null;
    if (c.call !== null || answer !== null || unreadFailed) out.push({ slot: c, index: i, answer, batchOf: 0 });
  }
  if (unreadFailed && calls.length === 0) out.push({ slot: null, index: 0, answer: null, batchOf: 0 });
  for (const e of extra) out.push(e);
  return out;
}
