/**
 * Public types of the probe (DESIGN §10): the battery's cases, the target they run against, the
 * answers they judge and the report they make. Defaults live in `PROBE_DEFAULTS`.
 */
import type { DealerAgentError } from '../client/index.js';
import type { ConformanceViolation } from '../protocol/index.js';

/**
 * A case's level, from the spec sentence it checks (RFC 2119): a MUST case is mandatory (its
 * failure fails the run), a SHOULD case recommended (reported, fails the run only with `strict`).
 */
export type ProbeLevel = 'MUST' | 'SHOULD';

/** What a case concluded: passed, failed, or skipped (not applicable to this agent, or not sent). */
export type ProbeVerdict = 'pass' | 'fail' | 'skip';

/** The protocol family of an agent, and of a case (`all` for cases judged over every answer). */
export type ProbeFamily = 'aap' | 'dmc12';

/** The spec sentence a case is tied to. */
export interface SpecSentence {
  /** Where it is stated (`spec/aap-errors.txt "A2A protocol-level errors"`, `JSON-RPC 2.0 §4.1`). */
  source: string;
  /** The sentence, verbatim. */
  quote: string;
}

/** The agent under test, as discovery found it (or as `--dry-run` shows it, with placeholders). */
export interface ProbeTarget {
  family: ProbeFamily;
  /** The URL the operator gave. */
  url: string;
  /** Where JSON-RPC requests go (the card's JSONRPC interface, or the DMC-12 endpoint). */
  rpcUrl: string;
  /** AAP: the card's A2A protocol versions of its JSONRPC interfaces (`['1.0']`). */
  versions: readonly string[];
  /** AAP: URIs of the extensions the card declares `required: true`. */
  requiredExtensions: readonly string[];
  /** AAP: skill ids the card declares; DMC-12: tool names `tools/list` returned (empty when unknown). */
  skills: readonly string[];
  /** DMC-12: a bearer token is available (from the environment or a file). */
  hasToken: boolean;
  /** True when built for `--dry-run` (values are placeholders, nothing was fetched). */
  placeholder: boolean;
}

/** One request of a case, exactly as it goes on the wire (POST to the target's `rpcUrl`). */
export interface ProbeRequest {
  /** Short name within the case (`no-header`, `repeat`). */
  label: string;
  /** Request headers; `Authorization` is added by the sender unless `auth` says otherwise. */
  headers: Readonly<Record<string, string>>;
  /** The body, as text (it may be deliberately broken JSON). */
  body: string;
  /** `token` (default): send the bearer token when one is configured; `none`: never; `invalid`: a fixed wrong token. */
  auth?: 'token' | 'none' | 'invalid';
}

/** What came back for one request. */
export interface ProbeAnswer {
  /** The case that sent it (set by the runner; cross-cutting cases name it in findings). */
  caseId: string;
  request: ProbeRequest;
  /** HTTP status; 0 when no answer arrived (`transportError`). */
  status: number;
  contentType: string;
  /** The body text (at most `PROBE_DEFAULTS.maxBodyBytes`). */
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  /** Errors the buyer-side adapter (`createAapFetch`) found in the answer, one per error reply. */
  errors: readonly DealerAgentError[];
  /** Every error_id the answer carries (aap.error, ErrorInfo metadata, DMC-12 data), deduplicated. */
  errorIds: readonly string[];
  /** The protocol checker's findings on the body (`checkConformance`). */
  violations: readonly ConformanceViolation[];
  /** Why no answer arrived (connection reset, timeout), or null. */
  transportError: string | null;
  /** Wall time of the exchange, ms. */
  durationMs: number;
}

/** A case's conclusion from its answers: an empty list passes. */
export type Findings = string[];

/** One case of the battery: data (id, level, sentence) plus how it builds requests and judges answers. */
export interface ProbeCase {
  /** Stable id, `<family>.<area>.<what>` (`aap.activation.missing-header`); reports and JUnit use it. */
  id: string;
  family: ProbeFamily | 'all';
  level: ProbeLevel;
  /** One line: what is sent and what must come back. */
  title: string;
  spec: SpecSentence;
  /** Why sending it cannot change anything on the agent (every request must be rejected). */
  safety: string;
  /** A reason the case does not apply to `target` (the card declares no required extension…), or null. */
  skipReason?(target: ProbeTarget): string | null;
  /** The requests, in order. Cross-cutting cases send none and judge every answer of the run. */
  requests(target: ProbeTarget): ProbeRequest[];
  /** Findings over this case's answers (cross-cutting cases: over every answer of the run). */
  judge(answers: readonly ProbeAnswer[], target: ProbeTarget): Findings;
  /** Cross-cutting: judged over all answers of the run instead of its own. */
  crossCutting?: boolean;
  /** Judged over the answers of this other case (sends nothing itself), so one request serves two sentences. */
  answersOf?: string;
}

/** One answer as the report shows it: codes and ids only, never message text or bodies. */
export interface AnswerSummary {
  label: string;
  http_status: number;
  /** `-32008 EXTENSION_SUPPORT_REQUIRED`, `result (success)`, `no answer: …`. */
  got: string;
  jsonrpc_code: number | null;
  code: string | null;
  error_ids: string[];
  duration_ms: number;
}

/** One case's outcome. */
export interface CaseResult {
  id: string;
  family: ProbeFamily | 'all';
  level: ProbeLevel;
  title: string;
  spec: SpecSentence;
  verdict: ProbeVerdict;
  /** Why it failed (one line each), or why it was skipped. */
  findings: string[];
  answers: AnswerSummary[];
}

/** The whole run. */
export interface ProbeReport {
  target: ProbeTarget;
  /** RFC 3339 UTC. */
  started_at: string;
  duration_ms: number;
  /** HTTP requests sent, discovery included. */
  requests_sent: number;
  cases: CaseResult[];
  summary: {
    mandatory: { passed: number; failed: number; skipped: number };
    recommended: { passed: number; failed: number; skipped: number };
  };
  /** True when every mandatory case passed (and with `strict`, every recommended one). */
  ok: boolean;
  strict: boolean;
}

/** Options of `runProbe`. */
export interface ProbeOptions {
  /**
   * Which battery: `aap` reads the agent card, `dmc12` lists the tools; `auto` tries the card first.
   * @default 'auto'
   */
  protocol?: ProbeFamily | 'auto';
  /** Bearer token (the CLI reads it from an environment variable or a file, never argv). */
  token?: string;
  /** Most requests per second. @default 5 */
  ratePerSecond?: number;
  /** Most requests in the whole run, discovery included. @default 60 */
  maxRequests?: number;
  /** Per-request timeout, ms. @default 10000 */
  timeoutMs?: number;
  /** JSON-RPC URL to use instead of the one the agent card names (another origin needs it). */
  rpcUrl?: string;
  /** Recommended (SHOULD) failures fail the run too. @default false */
  strict?: boolean;
  /** Called after each case (progress). */
  onCase?: (result: CaseResult) => void;
  /** Injectable fetch (tests). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Clock, epoch ms. @default Date.now */
  now?: () => number;
}

/** Defaults of the probe, in one place. */
export const PROBE_DEFAULTS = Object.freeze({
  /** Requests per second (issue 20: "a rate cap (default 5 requests/s)"). */
  ratePerSecond: 5,
  /** Requests in one run, discovery included; the battery needs about 25. */
  maxRequests: 60,
  /** Per-request timeout, ms. */
  timeoutMs: 10_000,
  /** Largest answer body read, bytes. */
  maxBodyBytes: 1 << 20,
  /** A RATE_LIMITED answer is resent once after its retry hint when the hint is at most this, ms. */
  maxRetryAfterMs: 15_000,
  /** Environment variable the CLI reads the bearer token from. */
  tokenEnv: 'AAP_TRIAGE_PROBE_TOKEN',
});
