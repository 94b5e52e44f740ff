/**
 * The buyer-side incident report (dmc12-errors.txt "Retry strategy": once retries are exhausted,
 * "surface to an operator with the error_id + trace_id", and "include both in any incident email"
 * to the dealer's support address). Built from a `DealerAgentError` — after `withRetries`, with
 * every attempt — as text and .eml through the same composer the operator's drafts use
 * (src/incident). Codes, ids, numbers and times only: no request value and no message text of
 * the dealer's (which may echo one) ever enters it.
 */
// The modules, not the index: the index also re-exports the address parser (nodemailer), which
// a buyer that only reads errors should not load (issue 13).
import { renderDocumentText } from '../incident/text.js';
import type { IncidentDocument, TableColumn } from '../incident/document.js';
import { buildIncidentEml } from '../incident/eml.js';
import type { EmlOptions } from '../incident/eml.js';
import type { ErrorProtocol, Violation, WireForm } from '../protocol/index.js';
import { attemptRecordOf, type AttemptRecord, type StopReason } from './attempt.js';

/** Options of `incidentReport` / `incidentReportEml`. */
export interface IncidentReportOptions {
  /** The dealer agent, as the subject and summary name it (its name or URL). @default 'the dealer agent' */
  dealer?: string;
  /** The buyer agent that made the call, named in the summary. @default 'our buyer agent' */
  buyer?: string;
  /** When the report is written, epoch ms. @default Date.now() */
  now?: number;
}

/**
 * What the report reads of an error: the fields of a `DealerAgentError` (which is one), named
 * here so the report depends on the shape, not the class (the class offers the report as a method).
 */
export interface ReportedError {
  readonly protocol: ErrorProtocol;
  readonly form: WireForm;
  readonly code: string;
  readonly jsonrpcCode: number | null;
  readonly httpStatus: number;
  readonly retryable: boolean | null;
  /** ms */
  readonly retryAfterMs: number | null;
  readonly errorId: string | null;
  readonly traceId: string | null;
  readonly upstreamTraceId: string | null;
  readonly rpcMethod: string | null;
  readonly skill: string | null;
  readonly violations: readonly Pick<Violation, 'keyword'>[];
  /** The attempt this error answered; null outside `withRetries`. */
  readonly attempt: number | null;
  /** Every attempt, as `withRetries` recorded them (empty outside it). */
  readonly attempts: readonly AttemptRecord[];
  readonly stopReason: StopReason | null;
}

/** A buyer-side incident report: mail subject, plain text (also the .eml body) and its document. */
export interface BuyerIncidentReport {
  subject: string;
  text: string;
  document: IncidentDocument;
}

/** A wire token the report may quote: letters, digits, `_ . : / -`, bounded (ids and codes as dealers send them; never an email or a phone). */
const SAFE_TOKEN = /^[A-Za-z0-9_.:/-]{1,128}$/;
/** Our own configuration text (dealer and buyer names): one line, bounded. */
const oneLine = (s: string): string => s.replace(/[\r\n\t]+/g, ' ').slice(0, 200);

const token = (v: string | number | null | undefined): string => {
  if (v === null || v === undefined) return '-';
  const s = String(v);
  return SAFE_TOKEN.test(s) ? s : '(not quotable)';
};
/** UTC time to the millisecond (attempts are often under a second apart). */
const utc = (ms: number): string => new Date(ms).toISOString().replace('T', ' ');

/** Why the loop stopped, in words. */
const STOPPED: Record<StopReason, string> = {
  'not-retryable': 'the dealer marked the error retryable=false',
  'retryable-unknown': 'the answer did not say whether it may be retried',
  'max-attempts': 'the attempt limit was reached',
  'budget-exhausted': 'the client retry budget was used up',
  'retry-after-too-long': 'the dealer asked for a longer wait than the client sits out',
  deadline: 'the call ran out of time',
  'transport-error': 'no dealer answer came',
  aborted: 'the call was cancelled',
};

/** The attempts to report: `withRetries`' record, or the one attempt this error answered. */
function attemptsOf(error: ReportedError, now: number): readonly AttemptRecord[] {
  return error.attempts.length > 0 ? error.attempts : [attemptRecordOf(error, error.attempt ?? 1, now)];
}

/** Column widths from the widest cell (values are bounded tokens). */
function columns(titles: readonly [string, 'left' | 'right'][], rows: readonly (readonly string[])[]): TableColumn[] {
  return titles.map(([title, align], i) => ({ title, align, width: Math.max(title.length, ...rows.map((r) => (r[i] ?? '').length)) + 2 }));
}

/**
 * The incident report for an error a dealer answered with: subject, summary, the error's fields
 * (code, protocol, JSON-RPC code, HTTP status, retryable, retry hint, error_id, trace_id,
 * upstream trace id, method, skill, time, why retries stopped), every attempt (time, code,
 * error_id, trace_id, retry hint, wait), and the requested action. Pure apart from the default
 * clock. Nothing the buyer sent and no message text is included (the dealer's message may echo
 * the request); ids that are not plain tokens are shown as `(not quotable)`.
 *
 * @param error the `DealerAgentError` `withRetries` threw (or any, then as one attempt), or any
 *   object of the same fields ({@link ReportedError})
 */
export function incidentReport(error: ReportedError, options: IncidentReportOptions = {}): BuyerIncidentReport {
  const now = options.now ?? Date.now();
  const dealer = oneLine(options.dealer ?? 'the dealer agent');
  const buyer = oneLine(options.buyer ?? 'our buyer agent');
  const attempts = attemptsOf(error, now);
  const last = attempts.at(-1) as AttemptRecord;
  const code = token(error.code);
  const n = attempts.length;
  const call = [token(error.rpcMethod), error.skill !== null ? `(${token(error.skill)})` : ''].filter((s) => s !== '' && s !== '-').join(' ') || 'a call';
  const stopped = error.stopReason !== null ? `; retries stopped because ${STOPPED[error.stopReason]}` : '';

  const rows = attempts.map((a) => [String(a.attempt), utc(a.startedAt), token(a.code), token(a.errorId), token(a.traceId), a.retryAfterMs === null ? '-' : String(a.retryAfterMs), a.delayMs === null ? '-' : String(a.delayMs)]);
  const violations = error.violations.length;
  const keywords = [...new Set(error.violations.map((v) => v.keyword).filter((k) => /^[A-Za-z]{1,40}$/.test(k)))];

  const document: IncidentDocument = {
    subject: `[aap-triage] ${code} from ${dealer} after ${n} attempt${n === 1 ? '' : 's'} (error_id ${token(error.errorId)})`,
    sections: [
      {
        title: 'Summary',
        blocks: [
          {
            kind: 'paragraph',
            text:
              `At ${utc(last.startedAt)} (UTC) ${buyer}'s ${call} to ${dealer} failed with ${code} ` +
              `(${error.protocol}${error.jsonrpcCode !== null ? `, JSON-RPC ${error.jsonrpcCode}` : ''}, HTTP ${error.httpStatus}, retryable=${String(error.retryable)}) ` +
              `after ${n} attempt${n === 1 ? '' : 's'}${stopped}. The error_id and trace_id of every attempt are below, as the DMC-12 retry guidance asks.`,
          },
        ],
      },
      {
        title: 'Error',
        blocks: [
          {
            kind: 'fields',
            labelWidth: 20,
            rows: [
              ['Code', code],
              ['Protocol', `${error.protocol} (${error.form})`],
              ['JSON-RPC code', error.jsonrpcCode === null ? '-' : String(error.jsonrpcCode)],
              ['HTTP status', String(error.httpStatus)],
              ['Retryable', String(error.retryable)],
              ['Retry after (ms)', error.retryAfterMs === null ? '-' : String(error.retryAfterMs)],
              ['error_id', token(error.errorId)],
              ['trace_id', token(error.traceId)],
              ['Upstream trace id', token(error.upstreamTraceId)],
              ['Method', token(error.rpcMethod)],
              ['Skill / tool', token(error.skill)],
              ['Time (UTC)', utc(last.startedAt)],
              ['Attempts', String(n)],
              ['Stopped because', error.stopReason === null ? '-' : STOPPED[error.stopReason]],
              ...(violations > 0 ? [['Validation', `${violations} problem${violations === 1 ? '' : 's'}${keywords.length ? ` (${keywords.join(', ')})` : ''}`] as [string, string]] : []),
            ],
          },
        ],
      },
      {
        title: 'Attempts (UTC)',
        blocks: [
          {
            kind: 'table',
            columns: columns(
              [
                ['ATTEMPT', 'left'],
                ['STARTED', 'left'],
                ['CODE', 'left'],
                ['ERROR_ID', 'left'],
                ['TRACE_ID', 'left'],
                ['RETRY AFTER MS', 'right'],
                ['WAITED MS', 'right'],
              ],
              rows,
            ),
            rows,
          },
        ],
      },
      {
        title: 'Requested action',
        blocks: [
          {
            kind: 'numbered',
            items: [
              `Look up the error_ids and trace_ids above in your logs (with aap-triage: aap-triage show ${token(error.errorId)}).`,
              error.retryable === true
                ? 'Tell us the cause and when the service is expected back; the error is marked retryable but persisted.'
                : 'Tell us the cause and what the call needs to succeed; the error is not marked retryable, so we will not resend it as is.',
              'This report holds codes, ids and times only: the request itself is not included (it may hold customer data); ask us for it if you need it.',
            ],
          },
        ],
      },
      { title: 'Report', blocks: [{ kind: 'fields', labelWidth: 20, rows: [['Written (UTC)', utc(now)], ['By', `${buyer}, with aap-triage/client`]] }] },
    ],
  };
  return { subject: document.subject, text: renderDocumentText(document), document };
}

/**
 * The incident report as an RFC 5322 message for the dealer's support address (`to`), through
 * the same .eml composer as the operator's drafts (nodemailer's MailComposer).
 * @returns the message bytes. Rejects when an address cannot be encoded.
 */
export async function incidentReportEml(error: ReportedError, options: IncidentReportOptions & EmlOptions): Promise<Buffer> {
  const report = incidentReport(error, options);
  return buildIncidentEml(report, { from: options.from, to: options.to, date: options.date ?? new Date(options.now ?? Date.now()), ...(options.messageId ? { messageId: options.messageId } : {}) });
}
