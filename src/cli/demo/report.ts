/**
 * What the demo shows without a terminal UI: the errors recorded per protocol and code, the
 * retry storms found (with the buyer behind each pseudonym), the incident draft for the worst
 * storm, and the commands to explore further. Opens the store as the CLI does (`openStoreReader`
 * from `src/triage/store`, read-only) and reads it only through `src/triage`, as every command does.
 */
import type { Persona } from '../../demo/buyers/personas.js';
import { AAP_EXTENSION_URI, DEMO_DEFAULTS } from '../../demo/constants.js';
import type { BuyerReport } from '../../demo/simulator.js';
import { codeInfoFor, computeStats, draftIncident, findStorms, shortClient, type IncidentDraft, type StormEpisode, type TimeWindow } from '../../triage/index.js';
import { openStoreReader } from '../../triage/store.js';
import { buyerNamesByClient } from './buyer-names.js';

/** One storm and the buyer behind its client pseudonym (when the demo knows it). */
export interface DemoStorm {
  episode: StormEpisode;
  buyer: Persona | undefined;
}

/** The demo's findings. */
export interface DemoAnalysis {
  /** Error rows per protocol and code, most frequent first (`(await computeStats(…)).byCode`). */
  codes: Array<{ protocol: string; code: string; count: number }>;
  /** Error rows in the window. */
  errors: number;
  /** Client storms (`cause: 'client'`): what a buyer did wrong. */
  storms: DemoStorm[];
  /** Dealer-side episodes (`cause: 'dealer'`): buyers retrying retryable dealer faults as the policy allows. */
  dealerEpisodes: DemoStorm[];
  /** Healthy buyers blamed for a client storm (wrongly); empty when the detector is right. */
  healthyFlagged: Persona[];
  /** The worst storm (most retries) and its incident draft. */
  worst: { storm: DemoStorm; draft: IncidentDraft } | undefined;
}

/** Reads the demo database: codes, storms in `window`, and the draft for the worst storm. */
export async function analyseDemo(dbPath: string, roster: readonly Persona[], window: TimeWindow): Promise<DemoAnalysis> {
  const names = buyerNamesByClient(dbPath, roster);
  const db = await openStoreReader(dbPath);
  try {
    const stats = await computeStats(db, null, window);
    const codes = stats.byCode.map((c) => ({ protocol: c.protocol, code: c.key, count: c.count }));
    const episodes = (await findStorms(db, window)).map((episode) => ({ episode, buyer: names.get(episode.client) }));
    const storms = episodes.filter((s) => s.episode.cause === 'client');
    const dealerEpisodes = episodes.filter((s) => s.episode.cause === 'dealer');
    const healthyFlagged = [...new Map(storms.filter((s) => s.buyer?.kind === 'healthy').map((s) => [s.buyer?.name, s.buyer as Persona])).values()];
    const worstStorm = [...storms].sort((a, b) => b.episode.retries - a.episode.retries)[0];
    const draft = worstStorm ? await draftIncident(db, { kind: 'storm', id: worstStorm.episode.id }, { extensionUri: AAP_EXTENSION_URI }) : undefined;
    return {
      codes,
      errors: stats.errors,
      storms,
      dealerEpisodes,
      healthyFlagged,
      worst: worstStorm && draft ? { storm: worstStorm, draft } : undefined,
    };
  } finally {
    await db.close();
  }
}

/** Facts about the run the report states. */
export interface ReportRun {
  /** Database path as the user should type it. */
  dbLabel: string;
  durationMs: number;
  aapBaseUrl: string;
  dmc12RpcUrl: string;
  buyers: BuyerReport[];
  /** How the user starts aap-triage (`aap-triage` or `node '/path/bin/aap-triage.js'`), for the hints. @default 'aap-triage' */
  invocation?: string;
  /** The store as the hints name it: an absolute path (or the URL), so they run from any folder. @default dbLabel */
  hintDb?: string;
}

const pct = (x: number): string => `${(x * 100).toFixed(0)} %`;

/** Renders the non-TTY report (plain text, no colour). */
export function renderDemoReport(run: ReportRun, a: DemoAnalysis): string {
  const out: string[] = [];
  const seconds = Math.round(run.durationMs / 1000);
  out.push(`aap-triage demo: ${seconds} s of traffic from ${run.buyers.length} buyer agents to ${DEMO_DEFAULTS.dealerAgents} dealer agents`, '');
  out.push('Buyers');
  for (const b of run.buyers) {
    const s = b.stats;
    out.push(
      `  ${b.persona.name.padEnd(16)} ${b.persona.kind.padEnd(12)} ${b.persona.protocol.padEnd(6)} ${String(s.requests).padStart(5)} calls ${String(s.errors).padStart(5)} errors ${String(s.retries).padStart(5)} retries  ${b.persona.behaviour}${b.failure ? `  [stopped: ${b.failure}]` : ''}`,
    );
  }
  out.push('', `Audit database ${run.dbLabel}: ${a.errors} errors recorded`);
  for (const c of a.codes) {
    const meaning = numericCodeMeaning(c.protocol, c.code);
    out.push(`  ${c.protocol.padEnd(7)} ${c.code.padEnd(30)} ${String(c.count).padStart(5)}${meaning ? `  ${meaning}` : ''}`);
  }
  out.push('', `Retry storms found: ${a.storms.length}`);
  for (const { episode: e, buyer } of a.storms) {
    const flags = Object.entries(e.flags)
      .filter(([, n]) => n > 0)
      .map(([f, n]) => `${f} ${n}`)
      .join(', ');
    out.push(`  ${e.id}  ${clientLabel(e.client, buyer)}`);
    out.push(`    ${e.skills.join(', ')}: ${e.codes.map((c) => `${c.code} x${c.count}`).join(', ')}; ${e.retries} retries of ${e.requests} calls (${pct(e.retryRatio)})`);
    out.push(`    flagged errors: ${flags || 'none'}${e.overAttemptCap > 0 ? `; ${e.overAttemptCap} attempts over the cap` : ''}`);
  }
  out.push(a.healthyFlagged.length === 0 ? '  Healthy buyers flagged: none' : `  Healthy buyers flagged: ${a.healthyFlagged.map((p) => p.name).join(', ')}`);
  if (a.dealerEpisodes.length > 0) {
    out.push('', `Dealer-side episodes (buyers retried retryable dealer faults as the policy allows; for the dealer's on-call): ${a.dealerEpisodes.length}`);
    for (const { episode: e, buyer } of a.dealerEpisodes) {
      out.push(`  ${e.id}  ${clientLabel(e.client, buyer)}`);
      out.push(`    ${e.skills.join(', ')}: ${e.codes.map((c) => `${c.code} x${c.count}`).join(', ')}; ${e.retries} retries of ${e.requests} calls (${pct(e.retryRatio)})`);
    }
  }
  if (a.worst) {
    const { storm, draft } = a.worst;
    out.push('', `Incident draft for the worst storm, ${storm.episode.id}${storm.buyer ? ` (buyer: ${storm.buyer.name})` : ''}:`, '');
    out.push(...draft.text.trimEnd().split('\n').map((l) => `  ${l}`));
  }
  const db = shellQuote(run.hintDb ?? run.dbLabel);
  // A hint is runnable as printed: without a storm there is no draft command to offer.
  const stormId = a.worst?.storm.episode.id ?? a.storms[0]?.episode.id ?? null;
  out.push(
    '',
    'Explore further',
    ...exploreCommands(run.invocation ?? 'aap-triage', db, stormId).map((c) => `  ${c}`),
    `  ${run.invocation ?? 'aap-triage'} tui --db ${db} --since 1h        (in a terminal)`,
    '',
  );
  return out.join('\n');
}

/**
 * The "Explore further" commands (the TUI's aside), each runnable as printed from any folder:
 * `invocation` is how the user starts aap-triage, `db` the shell-quoted store; the draft line
 * only when there is a storm to draft (`stormId`).
 */
export function exploreCommands(invocation: string, db: string, stormId: string | null): string[] {
  return [
    `${invocation} storms --db ${db} --since 1h`,
    `${invocation} search --db ${db} --since 1h code:RATE_LIMITED`,
    `${invocation} search --db ${db} --since 1h flag:retried_non_retryable`,
    ...(stormId ? [`${invocation} draft --db ${db} --since 1h --storm ${stormId} --format md`] : []),
    `${invocation} stats --db ${db} --since 1h`,
  ];
}

/**
 * `client <short pseudonym> (buyer: name)`: the pseudonym in the short form the incident draft's
 * subject uses (`shortClient`), and the buyer when the demo knows it.
 */
export function clientLabel(client: string, buyer: Persona | undefined): string {
  return `client ${shortClient(client)}${buyer ? ` (buyer: ${buyer.name})` : ''}`;
}

/**
 * What a bare JSON-RPC code (`-32001`) means, from the code tables (`codeInfoFor`), cut to its
 * first clause; undefined for named codes, which speak for themselves, and for unknown ones.
 */
export function numericCodeMeaning(protocol: string, code: string): string | undefined {
  if (!/^-\d+$/.test(code)) return undefined;
  const meaning = codeInfoFor(protocol, code)?.meaning;
  return meaning ? `— ${meaning.split('; ')[0]?.replace(/\.$/, '')}` : undefined;
}

/** Quotes a path for a POSIX shell when it needs it. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
