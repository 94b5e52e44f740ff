/** The Markdown layout of an incident document (GitHub-flavoured: tables). Pure. */
import type { Block, IncidentDocument } from './document.js';

/** A table cell: a `|` would end the cell early. */
const cell = (s: string): string => s.replace(/\|/g, '\\|');
const code = (s: string): string => `\`${s}\``;
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
const rule = (aligns: readonly ('left' | 'right' | undefined)[]): string => `|${aligns.map((a) => (a === 'right' ? '---:' : '---')).join('|')}|`;

function blockLines(block: Block): string[] {
  switch (block.kind) {
    case 'paragraph':
      return [block.text];
    case 'fields':
      return ['| | |', '|---|---|', ...block.rows.map(([label, value]) => row([cell(label), cell(value)]))];
    case 'table':
      return [
        row(block.columns.map((c) => cell(c.title))),
        rule(block.columns.map((c) => c.align)),
        ...block.rows.map((r) => row(block.columns.map((c, i) => (c.code ? code(cell(r[i] ?? '')) : cell(r[i] ?? ''))))),
      ];
    case 'events':
      return block.events.map((e) => `- ${code(e.at)} ${e.text}`);
    case 'records':
      return [
        row(block.columns.map((c) => cell(c.title))),
        rule(block.columns.map((c) => c.align)),
        ...block.rows.map((r) =>
          row(
            block.columns.map((c, i) => {
              const { value = '', link = null } = r[i] ?? {};
              if (value === '') return '-';
              const shown = c.code ? code(cell(value)) : cell(value);
              return link ? `[${shown}](${link})` : shown;
            }),
          ),
        ),
      ];
    case 'entries':
      return block.entries.flatMap((e, i) => [
        ...(i > 0 ? [''] : []),
        `### ${code(e.name)}${e.qualifier}`,
        '',
        ...(e.note ? [e.note, ''] : []),
        ...e.fields.map(([label, value]) => `- **${label}:** ${value}`),
        ...(e.reference ? [`- **${e.reference.label}:** ${e.reference.text}`] : []),
      ]);
    case 'numbered':
      return block.items.map((item, i) => `${i + 1}. ${item}`);
  }
}

/**
 * Renders a document as Markdown: the subject as the `#` heading, each section as a `##`
 * heading, its blocks apart by blank lines, and a blank line. Ends with a newline. Pure.
 */
export function renderDocumentMarkdown(doc: IncidentDocument): string {
  const out: string[] = [`# ${doc.subject}`, ''];
  for (const section of doc.sections) {
    out.push(`## ${section.title}`, '');
    section.blocks.forEach((block, i) => out.push(...(i > 0 ? [''] : []), ...blockLines(block)));
    out.push('');
  }
  return out.join('\n');
}
