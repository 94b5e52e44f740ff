/** The plain-text layout of an incident document (also the .eml body, eml.ts). Pure. */
import type { Block, IncidentDocument, RecordCell, RecordColumn, TableColumn } from './document.js';

const INDENT = '  ';

function pad(value: string, column: TableColumn): string {
  return column.align === 'right' ? value.padStart(column.width) : value.padEnd(column.width);
}

/** A record on one line: its values two spaces apart, keyed ones as `title=value`, then its links. */
function recordLine(columns: readonly RecordColumn[], cells: readonly RecordCell[]): string {
  const parts: string[] = [];
  columns.forEach((c, i) => {
    const value = cells[i]?.value ?? '';
    if (c.optional && value === '') return;
    parts.push(c.keyed ? `${c.title}${c.keyed}${value}` : value);
  });
  for (const cell of cells) if (cell.link) parts.push(cell.link);
  return parts.join('  ');
}

function blockLines(block: Block): string[] {
  switch (block.kind) {
    case 'paragraph':
      return [block.text];
    case 'fields': {
      const width = block.labelWidth ?? 14;
      return block.rows.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`);
    }
    case 'table':
      return [block.columns.map((c) => pad(c.title.toUpperCase(), c)).join(''), ...block.rows.map((row) => block.columns.map((c, i) => pad(row[i] ?? '', c)).join(''))];
    case 'events':
      return block.events.map((e) => `${e.at}  ${e.text}`);
    case 'records':
      return block.rows.map((row) => recordLine(block.columns, row));
    case 'entries': {
      const width = block.labelWidth ?? 8;
      return block.entries.flatMap((e) => [
        `${e.name}${e.qualifier}${e.note ? `: ${e.note}` : ''}`,
        ...e.fields.map(([label, value], i) => `${INDENT}${`${label}:`.padEnd(width)}${value}${e.reference && i === e.fields.length - 1 ? ` [${e.reference.text}]` : ''}`),
      ]);
    }
    case 'numbered':
      return block.items.map((item, i) => `${i + 1}. ${item}`);
  }
}

/**
 * Renders a document as plain text: a `Subject:` line, a blank line, then each section as its
 * title (with its note in brackets), its blocks' lines indented by two spaces, and a blank line.
 * Ends with a newline. Pure.
 */
export function renderDocumentText(doc: IncidentDocument): string {
  const out: string[] = [`Subject: ${doc.subject}`, ''];
  for (const section of doc.sections) {
    out.push(section.titleNote ? `${section.title} (${section.titleNote})` : section.title);
    for (const block of section.blocks) for (const line of blockLines(block)) out.push(`${INDENT}${line}`);
    out.push('');
  }
  return out.join('\n');
}
