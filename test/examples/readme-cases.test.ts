// The README matcher the examples test relies on (issue 18): a wrong value, a missing or an
// undocumented key, or a missing output line is reported, and `…` matches only what it stands for.
import { describe, expect, it } from 'vitest';
import { jsonDifferences, missingLines, parseReadme } from './readme-cases.js';

describe('jsonDifferences', () => {
  it('agrees on equal values and on … placeholders', () => {
    expect(jsonDifferences({ id: 1, error_id: 'err_0a', t: '2026-12-01T00:00:00Z', a: [1] }, { id: 1, error_id: 'err_…', t: '…', a: [1] })).toEqual([]);
  });

  it('reports a wrong value, a wrong shape behind a glob, a missing and an undocumented key, and a length change', () => {
    expect(jsonDifferences({ code: -32601 }, { code: -32600 })).toEqual(['$.code: -32601 is not -32600']);
    expect(jsonDifferences({ error_id: 'trc_0a' }, { error_id: 'err_…' })).toHaveLength(1);
    expect(jsonDifferences({}, { a: '…' })).toEqual(['$.a: missing']);
    expect(jsonDifferences({ a: 1, b: 2 }, { a: 1 })).toEqual(['$.b: not documented']);
    expect(jsonDifferences({ a: [1, 2] }, { a: [1] })).toHaveLength(1);
  });
});

describe('missingLines', () => {
  it('finds documented lines in order, whitespace-insensitive, … matching any text', () => {
    const out = 'HEAD  A   B\n2026-12-01 10:00:00Z  X  err_01\n2026-12-01 10:00:01Z  Y  err_02\n';
    expect(missingLines(out, ['HEAD A B', '…  X  err_…', '… Y err_…'])).toEqual([]);
    expect(missingLines(out, ['… Y err_…', '…  X  err_…'])).toEqual(['…  X  err_…']);
    expect(missingLines(out, ['… Z err_…'])).toEqual(['… Z err_…']);
  });
});

describe('parseReadme', () => {
  it('pairs each curl with its http answer and each aap-triage command with its text output', () => {
    const md = [
      '```sh', 'curl -si http://x/ -d \'{}\'', '```', '', '```http', 'HTTP/1.1 200 OK', '', '{"ok": true}', '```',
      '```sh', './node_modules/.bin/aap-triage search', '```', '```text', 'A  B', '', '```',
    ].join('\n');
    const { curls, commands } = parseReadme(md);
    expect(curls).toEqual([{ n: 1, command: "curl -si http://x/ -d '{}'", status: 'HTTP/1.1 200 OK', body: { ok: true } }]);
    expect(commands).toEqual([{ command: './node_modules/.bin/aap-triage search', lines: ['A  B'] }]);
  });

  it('refuses a curl without an answer', () => {
    expect(() => parseReadme('```sh\ncurl http://x/\n```\n')).toThrow(/without an http answer/);
  });
});
