/**
 * `runProbe`: discovery, then the battery case by case (sequential, through one capped sender),
 * then the cross-cutting cases over every answer, then the report.
 */
import { batteryFor } from './battery.js';
import { describeReply, replies } from './inspect.js';
import { ProbeSender, RequestCapReached } from './sender.js';
import { discoverTarget } from './target.js';
import {
  PROBE_DEFAULTS,
  type AnswerSummary,
  type CaseResult,
  type ProbeAnswer,
  type ProbeCase,
  type ProbeOptions,
  type ProbeReport,
  type ProbeTarget,
} from './types.js';

/** Resolved options: every default applied once, each checked. @throws RangeError naming the option. */
export function resolveProbeOptions(options: ProbeOptions): Required<Pick<ProbeOptions, 'protocol' | 'ratePerSecond' | 'maxRequests' | 'timeoutMs' | 'strict'>> {
  const ratePerSecond = options.ratePerSecond ?? PROBE_DEFAULTS.ratePerSecond;
  const maxRequests = options.maxRequests ?? PROBE_DEFAULTS.maxRequests;
  const timeoutMs = options.timeoutMs ?? PROBE_DEFAULTS.timeoutMs;
  if (!(ratePerSecond > 0 && ratePerSecond <= 1000)) throw new RangeError(`ratePerSecond must be in (0, 1000], got ${ratePerSecond}`);
  if (!Number.isInteger(maxRequests) || maxRequests < 1) throw new RangeError(`maxRequests must be a positive integer, got ${maxRequests}`);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new RangeError(`timeoutMs must be a positive integer (ms), got ${timeoutMs}`);
  return { protocol: options.protocol ?? 'auto', ratePerSecond, maxRequests, timeoutMs, strict: options.strict ?? false };
}

/** One answer as the report shows it: codes and ids, never message text or bodies. */
export function summarizeAnswer(a: ProbeAnswer): AnswerSummary {
  const list = replies(a.json).map(describeReply);
  const got =
    a.transportError !== null
      ? `no answer: ${a.transportError}`
      : a.json === undefined
        ? `HTTP ${a.status} ${a.text.length === 0 ? '(empty body)' : 'non-JSON body'}`
        : list.length === 0
          ? 'not a JSON-RPC response'
          : list.map((d) => d.got).join('; ');
  return {
    label: a.request.label,
    http_status: a.status,
    got: Array.isArray(a.json) ? `[${got}]` : got,
    jsonrpc_code: list[0]?.jsonrpcCode ?? null,
    code: list[0]?.code ?? null,
    error_ids: [...a.errorIds],
    duration_ms: Math.round(a.durationMs),
  };
}

function result(c: ProbeCase, verdict: CaseResult['verdict'], findings: string[], answers: readonly ProbeAnswer[]): CaseResult {
  return { id: c.id, family: c.family, level: c.level, title: c.title, spec: c.spec, verdict, findings, answers: answers.map(summarizeAnswer) };
}

function judged(c: ProbeCase, answers: readonly ProbeAnswer[], target: ProbeTarget, shown: readonly ProbeAnswer[] = answers): CaseResult {
  let findings: string[];
  try {
    findings = c.judge(answers, target);
  } catch (err) {
    findings = [`the case's judge failed: ${err instanceof Error ? err.message : String(err)}`];
  }
  return result(c, findings.length === 0 ? 'pass' : 'fail', findings, shown);
}

/** Counts and the run's verdict. */
export function summarize(cases: readonly CaseResult[], strict: boolean): Pick<ProbeReport, 'summary' | 'ok'> {
  const count = (level: 'MUST' | 'SHOULD') => {
    const of = cases.filter((c) => c.level === level);
    return { passed: of.filter((c) => c.verdict === 'pass').length, failed: of.filter((c) => c.verdict === 'fail').length, skipped: of.filter((c) => c.verdict === 'skip').length };
  };
  const summary = { mandatory: count('MUST'), recommended: count('SHOULD') };
  return { summary, ok: summary.mandatory.failed === 0 && (!strict || summary.recommended.failed === 0) };
}

/**
 * Probes the agent at `url`: reads its agent card (AAP) or lists its tools (DMC-12), sends the
 * battery at most `ratePerSecond` requests a second and `maxRequests` in all, and judges every
 * answer. Cases that do not apply, or that the total cap cut off, are skipped with the reason.
 *
 * @throws ProbeUnreachableError when nothing answers at `url` or it is no AAP / DMC-12 agent;
 *   ProbeTargetError when the card's JSON-RPC interface is on another origin (pass `rpcUrl`);
 *   RangeError for a bad option.
 */
export async function runProbe(url: string, options: ProbeOptions = {}): Promise<ProbeReport> {
  const o = resolveProbeOptions(options);
  const now = options.now ?? Date.now;
  const startedAt = now();
  const sender = new ProbeSender({ token: options.token, ratePerSecond: o.ratePerSecond, maxRequests: o.maxRequests, timeoutMs: o.timeoutMs, fetch: options.fetch });
  const target = await discoverTarget(url, o.protocol, sender, { token: options.token, rpcUrl: options.rpcUrl, timeoutMs: o.timeoutMs });

  const cases = batteryFor(target.family);
  const byCase = new Map<string, ProbeAnswer[]>();
  const results = new Map<string, CaseResult>();
  const emit = (r: CaseResult) => {
    results.set(r.id, r);
    options.onCase?.(r);
  };
  let capped = false;
  for (const c of cases) {
    if (c.crossCutting) continue;
    const skip = c.skipReason?.(target) ?? null;
    if (skip !== null) {
      emit(result(c, 'skip', [skip], []));
      continue;
    }
    if (c.answersOf !== undefined) {
      const from = byCase.get(c.answersOf);
      if (from === undefined || from.length === 0) emit(result(c, 'skip', [`${c.answersOf} sent nothing`], []));
      else emit(judged(c, from, target));
      continue;
    }
    if (capped) {
      emit(result(c, 'skip', [`not sent: the total request cap (${o.maxRequests}) was reached`], []));
      continue;
    }
    const answers: ProbeAnswer[] = [];
    try {
      for (const req of c.requests(target)) answers.push({ ...(await sender.send(target.rpcUrl, req, target.family)), caseId: c.id });
    } catch (err) {
      if (!(err instanceof RequestCapReached)) throw err;
      capped = true;
      emit(result(c, 'skip', [`not sent: the total request cap (${o.maxRequests}) was reached`], answers));
      continue;
    }
    byCase.set(c.id, answers);
    emit(judged(c, answers, target));
  }
  const all = [...byCase.values()].flat();
  for (const c of cases.filter((x) => x.crossCutting)) {
    emit(all.length === 0 ? result(c, 'skip', ['no answers to judge'], []) : judged(c, all, target, []));
  }
  const ordered = cases.map((c) => results.get(c.id)).filter((r): r is CaseResult => r !== undefined);
  return {
    target,
    started_at: new Date(startedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    duration_ms: Math.round(now() - startedAt),
    requests_sent: sender.sent,
    cases: ordered,
    ...summarize(ordered, o.strict),
    strict: o.strict,
  };
}
