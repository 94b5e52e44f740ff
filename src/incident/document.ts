/**
 * The incident document both sides write: the operator's drafts (src/triage/draft-document.ts,
 * from the audit store) and the buyer's report (src/client/incident-report.ts, from a
 * `DealerAgentError`). A subject and titled sections of blocks that say what they hold (fields,
 * a table, time-stamped events, records, entries, numbered items), so each renderer lays them
 * out its own way: plain text (text.ts, also the .eml body) and Markdown (markdown.ts). Data only.
 */

/** One column of a table: title, width of its plain-text column in characters, and which side it pads. */
export interface TableColumn {
  /** As Markdown shows it; plain text writes it in capitals. */
  title: string;
  /** Plain text only: the column's width, characters. */
  width: number;
  /** `left` (default) pads after the value (`padEnd`), `right` before it (`padStart`); Markdown aligns the column so. */
  align?: 'left' | 'right';
  /** The values are codes or ids (Markdown sets them as code). */
  code?: boolean;
}

/** One column of a `records` block (a list of records, each a line in plain text, a table row in Markdown). */
export interface RecordColumn {
  title: string;
  /** Plain text writes `title=value` (`=`) or `title value` (` `) for this column; default: the value alone. */
  keyed?: '=' | ' ';
  /** Plain text leaves the column out of a line where its value is empty (Markdown shows `-`). */
  optional?: boolean;
  /** The values are codes or ids (Markdown sets them as code). */
  code?: boolean;
  align?: 'left' | 'right';
}

/** A record's value, with a link to follow (a trace view) or null. */
export interface RecordCell {
  value: string;
  link?: string | null;
}

/** One entry of an `entries` block: a titled item with a note, labelled fields and a reference. */
export interface Entry {
  /** The entry's name (a code: Markdown sets it as code). */
  name: string;
  /** What follows the name in its heading, e.g. ` (aap, retryable=false)`. */
  qualifier: string;
  /** One line on what the name means, or null. */
  note: string | null;
  /** Labelled lines (`Did`, `Should`). */
  fields: readonly (readonly [string, string])[];
  /** Where this is written down, or null: plain text appends `[text]` to the last field, Markdown gives it its own `label` line. */
  reference: { label: string; text: string } | null;
}

/** A block of a section. */
export type Block =
  /** One paragraph on one line (mail clients wrap it). */
  | { kind: 'paragraph'; text: string }
  /** Label and value pairs; plain text pads `Label:` to `labelWidth` (default 14). */
  | { kind: 'fields'; rows: readonly (readonly [string, string])[]; labelWidth?: number }
  /** A table with a header row. */
  | { kind: 'table'; columns: readonly TableColumn[]; rows: readonly (readonly string[])[] }
  /** Events in time order: a time (as shown) and what happened. */
  | { kind: 'events'; events: readonly { at: string; text: string }[] }
  /** Records (one per line in plain text, one per row in Markdown). */
  | { kind: 'records'; columns: readonly RecordColumn[]; rows: readonly (readonly RecordCell[])[] }
  /** Entries, each with its name, note, fields and reference. */
  | { kind: 'entries'; entries: readonly Entry[]; labelWidth?: number }
  /** `1. item`, `2. item`, … */
  | { kind: 'numbered'; items: readonly string[] };

/** A titled section. */
export interface Section {
  title: string;
  /** What the section holds, added to the title in plain text as `Title (note)`; Markdown's layout shows it (e.g. a table's header). */
  titleNote?: string;
  blocks: readonly Block[];
}

/** An incident document: the mail subject and its sections, in order. */
export interface IncidentDocument {
  subject: string;
  sections: readonly Section[];
}
