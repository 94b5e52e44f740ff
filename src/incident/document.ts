/**
 * The incident document both sides write: the operator's drafts (src/triage/draft.ts, from the
 * audit store) and the buyer's report (src/client/incident-report.ts, from a `DealerAgentError`).
 * A subject and titled sections of paragraphs, field lists, tables, indented lines and numbered
 * items, rendered to one plain-text layout (which is also the .eml body, eml.ts). Pure: no I/O.
 */

/** One column of a text table: title, width in characters, and which side it pads. */
export interface TableColumn {
  title: string;
  width: number;
  /** `left` (default) pads after the value (`padEnd`), `right` before it (`padStart`). */
  align?: 'left' | 'right';
}

/** A block of a section; every line of it is indented by two spaces. */
export type Block =
  /** One paragraph on one line (mail clients wrap it). */
  | { kind: 'paragraph'; text: string }
  /** `Label:` padded to `labelWidth` (default 14), then the value. */
  | { kind: 'fields'; rows: readonly (readonly [string, string])[]; labelWidth?: number }
  /** A header line of the column titles, then one line per row; cells padded to the column widths. */
  | { kind: 'table'; columns: readonly TableColumn[]; rows: readonly (readonly string[])[] }
  /** Lines as given (a line may carry its own further indent). */
  | { kind: 'lines'; lines: readonly string[] }
  /** `1. item`, `2. item`, … */
  | { kind: 'numbered'; items: readonly string[] };

/** A titled section. */
export interface Section {
  title: string;
  blocks: readonly Block[];
}

/** An incident document: the mail subject and its sections, in order. */
export interface IncidentDocument {
  subject: string;
  sections: readonly Section[];
}

const INDENT = '  ';

function pad(value: string, column: TableColumn): string {
  return column.align === 'right' ? value.padStart(column.width) : value.padEnd(column.width);
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
      return [block.columns.map((c) => pad(c.title, c)).join(''), ...block.rows.map((row) => block.columns.map((c, i) => pad(row[i] ?? '', c)).join(''))];
    case 'lines':
      return [...block.lines];
    case 'numbered':
      return block.items.map((item, i) => `${i + 1}. ${item}`);
  }
}

/**
 * Renders a document as plain text: a `Subject:` line, a blank line, then each section as its
 * title, its blocks' lines indented by two spaces, and a blank line. Ends with a newline. Pure.
 */
export function renderDocumentText(doc: IncidentDocument): string {
  const out: string[] = [`Subject: ${doc.subject}`, ''];
  for (const section of doc.sections) {
    out.push(section.title);
    for (const block of section.blocks) for (const line of blockLines(block)) out.push(`${INDENT}${line}`);
    out.push('');
  }
  return out.join('\n');
}
