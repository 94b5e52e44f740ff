/**
 * docs/protocol.md's table of normative sentences against the spec pages and the checker: every
 * quote is verbatim in its page, every RFC 2119 keyword of both pages sits inside a quoted
 * sentence, every rule named exists and every rule is named, and the stated counts add up. The
 * rule table lists CONFORMANCE_RULES exactly, in order.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_RULES } from '../../src/protocol/index.js';
import { ALL_CASES } from '../../src/probe/index.js';
import { HAVE_SPEC, SPEC_DIR, readSpec } from './reference.js';

const DOC = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The cells of a Markdown table row, `\|` read as a literal `|`. */
function cells(line: string): string[] {
  return line
    .slice(1, line.lastIndexOf('|'))
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

interface Sentence {
  n: string;
  page: 'A' | 'D' | 'J';
  level: string;
  quote: string;
  rules: string[];
  why: string;
}

const SENTENCES: Sentence[] = DOC.split('\n')
  .filter((l) => /^\| [ADJ]\d+ \|/.test(l))
  .map((l) => {
    const [n, level, quote, detected, why] = cells(l) as [string, string, string, string, string];
    return { n, page: n[0] as Sentence['page'], level, quote, rules: [...detected.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), why };
  });

const RULE_ROWS = DOC.split('\n')
  .filter((l) => /^\| \d+ \| `[a-z0-9.-]+` \|/.test(l))
  .map((l) => {
    const [n, id, level, quote] = cells(l) as [string, string, string, string];
    return { n: Number(n), id: id.replace(/`/g, ''), level, quote };
  });

const LEVELS = new Set(['MUST', 'MUST NOT', 'SHOULD', 'MAY', 'REQUIRED', 'OPTIONAL', 'RECOMMENDED', 'imperative', 'contract']);

describe('docs/protocol.md: the normative sentences', () => {
  it('numbers the sentences of each page consecutively, each with a known level', () => {
    for (const page of ['A', 'D', 'J'] as const) {
      const of = SENTENCES.filter((s) => s.page === page);
      expect(of.length).toBeGreaterThan(0);
      expect(of.map((s) => s.n)).toEqual(of.map((_, i) => `${page}${i + 1}`));
    }
    for (const s of SENTENCES) expect(LEVELS, s.n).toContain(s.level);
  });

  it('names only rules that exist, names every rule, and says why for each sentence no rule detects', () => {
    const known = new Set(CONFORMANCE_RULES.map((r) => r.id));
    for (const s of SENTENCES) for (const r of s.rules) expect(known, `${s.n} names ${r}`).toContain(r);
    expect(new Set(SENTENCES.flatMap((s) => s.rules))).toEqual(known);
  });

  it('gives each sentence no rule detects a probe case that exercises it, or the reason no request can show it', () => {
    // A sentence not visible in a single response is covered by the probe (several responses, and
    // it knows what it sent) or explained; one with neither fails here (issue 31).
    const cases = new Map(ALL_CASES.map((c) => [c.id, c]));
    for (const s of SENTENCES.filter((x) => x.rules.length === 0)) {
      const probe = /^probe: ((?:`[a-z0-9.-]+`(?:, )?)+) — \S/.exec(s.why);
      if (!probe) {
        expect(s.why, s.n).toMatch(/^no request can show it: \S/);
        continue;
      }
      for (const [, id] of probe[1]!.matchAll(/`([^`]+)`/g)) {
        const c = cases.get(id!);
        expect(c, `${s.n} names probe case ${id}`).toBeDefined();
        // An AAP sentence is exercised by an AAP case (or one judged over every answer), DMC-12 alike.
        expect([s.page === 'A' ? 'aap' : 'dmc12', 'all'], `${s.n}: ${id}`).toContain(c!.family);
      }
    }
  });

  it('states the counts the table holds', () => {
    const a = SENTENCES.filter((s) => s.page === 'A');
    const d = SENTENCES.filter((s) => s.page === 'D');
    const detected = (list: Sentence[]) => list.filter((s) => s.rules.length > 0).length;
    const probed = (list: Sentence[]) => list.filter((s) => s.rules.length === 0 && s.why.startsWith('probe: ')).length;
    const unshown = (list: Sentence[]) => list.length - detected(list) - probed(list);
    const summary =
      `**${a.length + d.length} sentences: ${a.length} in AAP "Errors" page, ${d.length} in DMC-12 "Error taxonomy" page. ` +
      `${detected(a) + detected(d)} are detected by a checker rule (${detected(a)} + ${detected(d)}); ` +
      `${a.length + d.length - detected(a) - detected(d)} are not visible in a single response (${a.length - detected(a)} + ${d.length - detected(d)}): ` +
      `${probed(a) + probed(d)} are exercised by a probe case (${probed(a)} + ${probed(d)}), which sees several responses and knows what it sent, ` +
      `and ${unshown(a) + unshown(d)} no request can show (${unshown(a)} + ${unshown(d)})`;
    const stated = /\*\*\d+ sentences:[^*]+\*\*/.exec(norm(DOC))?.[0];
    expect(stated).toContain(summary);
  });

  it('lists CONFORMANCE_RULES in order with their level and quote, and their number', () => {
    expect(RULE_ROWS.map((r) => r.id)).toEqual(CONFORMANCE_RULES.map((r) => r.id));
    RULE_ROWS.forEach((row, i) => {
      expect(row.n).toBe(i + 1);
      expect(row.level).toBe(CONFORMANCE_RULES[i]!.level);
      expect(row.quote).toBe(CONFORMANCE_RULES[i]!.quote);
    });
    expect(DOC).toContain(`**${CONFORMANCE_RULES.length} rules**`);
  });
});

describe.skipIf(!HAVE_SPEC)('docs/protocol.md against the spec pages', () => {
  if (!HAVE_SPEC) console.info(`skipping the spec-page checks: no spec pages at ${SPEC_DIR}`);
  const pages = HAVE_SPEC ? { A: norm(readSpec('aap-errors.txt')), D: norm(readSpec('dmc12-errors.txt')) } : { A: '', D: '' };
  /** Headings that carry a keyword but are no sentence. */
  const HEADINGS = ['The activation error MUST carry recovery instructions', 'What dealer agents MUST and MUST NOT do'];

  it('quotes every sentence verbatim from its page', () => {
    for (const s of SENTENCES.filter((x) => x.page !== 'J')) expect(pages[s.page as 'A' | 'D'], s.n).toContain(norm(s.quote));
  });

  it('quotes a sentence around every RFC 2119 keyword of both pages', () => {
    for (const page of ['A', 'D'] as const) {
      const text = pages[page];
      const covered: [number, number][] = [];
      const spans = [...SENTENCES.filter((s) => s.page === page).map((s) => norm(s.quote)), ...HEADINGS];
      for (const q of spans) for (let i = text.indexOf(q); i !== -1; i = text.indexOf(q, i + 1)) covered.push([i, i + q.length]);
      const uncovered = [...text.matchAll(/\b(MUST NOT|MUST|SHOULD NOT|SHOULD|SHALL|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b/g)]
        .filter((m) => !covered.some(([from, to]) => m.index >= from && m.index < to))
        .map((m) => text.slice(Math.max(0, m.index - 60), m.index + 40));
      expect(uncovered, page).toEqual([]);
    }
  });
});
