/**
 * Incident documents (plain text and RFC 5322 .eml), shared by the operator's drafts
 * (`src/triage`) and the buyer-side report (`src/client`). Imports nothing of ours, so both may
 * import it without breaking the one-way imports of DESIGN §3. Re-exports only.
 */
export { renderDocumentText } from './document.js';
export type { Block, IncidentDocument, Section, TableColumn } from './document.js';
export { buildIncidentEml } from './eml.js';
export type { EmlOptions } from './eml.js';
export { AddressError, formatMailbox, parseOneAddress } from './address.js';
export type { Mailbox } from './address.js';
