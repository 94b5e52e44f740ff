/**
 * The battery as data: docs/probe.md lists exactly its cases with their levels, every
 * cross-cutting case judges checker rules that exist, and no request could succeed by accident.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_RULES } from '../../src/protocol/index.js';
import { ALL_CASES, batteryFor } from '../../src/probe/battery.js';
import { CROSS_CUTTING_RULES } from '../../src/probe/cases/judge.js';

const DOC = readFileSync(new URL('../../docs/probe.md', import.meta.url), 'utf8');

/** `| \`case.id\` | LEVEL | …` rows of the page's "The battery" section. */
function documentedCases(): { id: string; level: string }[] {
  const section = DOC.slice(DOC.indexOf('## The battery'));
  const end = section.indexOf('\n## ', 3);
  const body = end > 0 ? section.slice(0, end) : section;
  return [...body.matchAll(/^\| `([a-z0-9.-]+)` \| (MUST|SHOULD) \|/gm)].map((m) => ({ id: m[1]!, level: m[2]! }));
}

describe('the probe battery', () => {
  it('is listed in docs/probe.md exactly, each case once with its level', () => {
    const documented = documentedCases();
    const ids = documented.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect([...documented].sort(byId)).toEqual(ALL_CASES.map((c) => ({ id: c.id, level: c.level })).sort(byId));
  });

  it('has unique ids of the form <family>.<area>.<what> (<family>.<what> for the ones over every answer), and each family battery holds its cases once', () => {
    const ids = ALL_CASES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^(aap|dmc12|all)(\.[a-z0-9-]+){1,2}$/);
    for (const family of ['aap', 'dmc12'] as const) {
      const own = batteryFor(family).map((c) => c.id);
      expect(new Set(own).size).toBe(own.length);
      for (const c of batteryFor(family)) expect([family, 'all']).toContain(c.family);
    }
  });

  it('judges cross-cutting cases by checker rules that exist, each rule by one case', () => {
    const known = new Set(CONFORMANCE_RULES.map((r) => r.id));
    const crossIds = ALL_CASES.filter((c) => c.crossCutting).map((c) => c.id);
    for (const [caseId, rules] of Object.entries(CROSS_CUTTING_RULES)) {
      expect(crossIds).toContain(caseId);
      for (const rule of rules) expect(known, rule).toContain(rule);
    }
    const all = Object.values(CROSS_CUTTING_RULES).flat();
    expect(new Set(all).size).toBe(all.length);
  });

  it('points every answersOf at a case that sends requests, earlier in the same battery', () => {
    for (const family of ['aap', 'dmc12'] as const) {
      const list = batteryFor(family);
      list.forEach((c, i) => {
        if (c.answersOf === undefined) return;
        const from = list.findIndex((x) => x.id === c.answersOf);
        expect(from, c.id).toBeGreaterThanOrEqual(0);
        expect(from).toBeLessThan(i);
        expect(list[from]!.answersOf).toBeUndefined();
      });
    }
  });
});
