/**
 * Incident documents (the document, its plain-text and Markdown renderers, RFC 5322 .eml),
 * shared by the operator's drafts (`src/triage`) and the buyer-side report (`src/client`).
 * Imports nothing of ours, so both may import it without breaking the one-way imports of
 * DESIGN §3. Re-exports only.
 */
export { renderDocumentText } from './text.js';
export { renderDocumentMarkdown } from './markdown.js';
export type { Block, Entry, IncidentDocument, RecordCell, RecordColumn, Section, TableColumn } from './document.js';
export { buildIncidentEml } from './eml.js';
export type { EmlOptions } from './eml.js';
export { AddressError, formatMailbox, parseOneAddress } from './address.js';
export type { Mailbox } from './address.js';
