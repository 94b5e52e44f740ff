import { describe, expect, it } from 'vitest';
import { renderDocumentMarkdown, renderDocumentText, type IncidentDocument } from '../../src/incident/index.js';

// One document with every block kind, laid out by both renderers.
const doc: IncidentDocument = {
  subject: 'Subject line',
  sections: [
    { title: 'Summary', blocks: [{ kind: 'paragraph', text: 'One paragraph.' }] },
    { title: 'Impact', blocks: [{ kind: 'fields', rows: [['Errors', '3'], ['Client', 'a|b']] }] },
    { title: 'Timeline', blocks: [{ kind: 'events', events: [{ at: '10:00Z', text: 'first error' }] }] },
    {
      title: 'Codes',
      blocks: [
        {
          kind: 'table',
          columns: [
            { title: 'Code', width: 8, code: true },
            { title: 'Count', width: 6, align: 'right' },
          ],
          rows: [['E_ONE', '3']],
        },
      ],
    },
    {
      title: 'Evidence',
      titleNote: 'ids',
      blocks: [
        {
          kind: 'records',
          columns: [
            { title: 'id', code: true },
            { title: 'trace', keyed: '=', code: true },
            { title: 'upstream', keyed: '=', optional: true },
            { title: 'attempt', keyed: ' ', align: 'right' },
          ],
          rows: [
            [{ value: 'err_1' }, { value: 't1', link: 'https://trace.example.com/t1' }, { value: '' }, { value: '2' }],
            [{ value: 'err_2' }, { value: '-' }, { value: 'trc_9' }, { value: '1' }],
          ],
        },
      ],
    },
    {
      title: 'Guidance',
      blocks: [
        {
          kind: 'entries',
          entries: [
            { name: 'E_ONE', qualifier: ' (x)', note: 'What it means.', fields: [['Did', 'retried'], ['Should', 'stop']], reference: { label: 'Spec', text: '§1' } },
            { name: 'E_TWO', qualifier: '', note: null, fields: [['Did', 'nothing']], reference: null },
          ],
        },
      ],
    },
    { title: 'Requested action', blocks: [{ kind: 'numbered', items: ['Do this.', 'Then that.'] }] },
  ],
};

describe('incident document renderers', () => {
  it('plain text: capital column titles, keyed record values, links at the end of a line, the reference after the last field', () => {
    expect(renderDocumentText(doc)).toBe(
      [
        'Subject: Subject line',
        '',
        'Summary',
        '  One paragraph.',
        '',
        'Impact',
        '  Errors:       3',
        '  Client:       a|b',
        '',
        'Timeline',
        '  10:00Z  first error',
        '',
        'Codes',
        '  CODE     COUNT',
        '  E_ONE        3',
        '',
        'Evidence (ids)',
        '  err_1  trace=t1  attempt 2  https://trace.example.com/t1',
        '  err_2  trace=-  upstream=trc_9  attempt 1',
        '',
        'Guidance',
        '  E_ONE (x): What it means.',
        '    Did:    retried',
        '    Should: stop [§1]',
        '  E_TWO',
        '    Did:    nothing',
        '',
        'Requested action',
        '  1. Do this.',
        '  2. Then that.',
        '',
      ].join('\n'),
    );
  });

  it('Markdown: headings, tables with aligned columns and escaped bars, linked and code-set values, entries as sub-headings', () => {
    expect(renderDocumentMarkdown(doc)).toBe(
      [
        '# Subject line',
        '',
        '## Summary',
        '',
        'One paragraph.',
        '',
        '## Impact',
        '',
        '| | |',
        '|---|---|',
        '| Errors | 3 |',
        '| Client | a\\|b |',
        '',
        '## Timeline',
        '',
        '- `10:00Z` first error',
        '',
        '## Codes',
        '',
        '| Code | Count |',
        '|---|---:|',
        '| `E_ONE` | 3 |',
        '',
        '## Evidence',
        '',
        '| id | trace | upstream | attempt |',
        '|---|---|---|---:|',
        '| `err_1` | [`t1`](https://trace.example.com/t1) | - | 2 |',
        '| `err_2` | `-` | trc_9 | 1 |',
        '',
        '## Guidance',
        '',
        '### `E_ONE` (x)',
        '',
        'What it means.',
        '',
        '- **Did:** retried',
        '- **Should:** stop',
        '- **Spec:** §1',
        '',
        '### `E_TWO`',
        '',
        '- **Did:** nothing',
        '',
        '## Requested action',
        '',
        '1. Do this.',
        '2. Then that.',
        '',
      ].join('\n'),
    );
  });
});
