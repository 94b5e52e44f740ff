/**
 * Client labels (issue #17 "Client names"): an operator's name and support contact for a client
 * pseudonym, kept in `client_labels` (migration 3). A partner company's name and its support
 * address are business data, not customer data (docs/audit-store.md), so they are stored as
 * typed; they are never derived from traffic.
 */
import { AuditStoreError } from './errors.js';
import { openAuditMaintenance } from './reader.js';

/** Longest label name, characters. */
export const MAX_LABEL_NAME = 80;

/** A stored label. */
export interface ClientLabel {
  /** The client pseudonym labelled. */
  client: string;
  /** The partner's name as the operator typed it. */
  name: string;
  /** Support address drafts about this client are addressed to; null when none. */
  contact: string | null;
  /** When the label was last set, epoch ms. */
  updated_at: number;
}

/**
 * Whether `name` may be a label: 1–{@link MAX_LABEL_NAME} characters after trimming, no control
 * characters (it is printed in tables, subjects and mail headers).
 */
export function labelNameProblem(name: string): string | null {
  const t = name.trim();
  if (t === '') return 'is empty';
  if (t.length > MAX_LABEL_NAME) return `is longer than ${MAX_LABEL_NAME} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(t)) return 'holds a line break or another control character';
  return null;
}

/**
 * The label as stored: the name checked ({@link labelNameProblem}) and trimmed, `updated_at`
 * = `now` (epoch ms, default the clock). @throws {RangeError} for a bad name.
 */
export function checkedClientLabel(label: { client: string; name: string; contact: string | null; now?: number }): ClientLabel {
  const problem = labelNameProblem(label.name);
  if (problem) throw new RangeError(`Expected a label name of 1–${MAX_LABEL_NAME} printable characters; the name ${problem}`);
  return { client: label.client, name: label.name.trim(), contact: label.contact, updated_at: label.now ?? Date.now() };
}

/**
 * Stores (or replaces) the label of `client` in the SQLite store at `path`. `contact` must already be a
 * validated address (src/incident/address.ts) or null. Returns the stored label.
 * @throws {AuditStoreError} when the store cannot be opened; RangeError for a bad name.
 */
export function setClientLabel(path: string, label: { client: string; name: string; contact: string | null; now?: number }): ClientLabel {
  const row = checkedClientLabel(label);
  storeClientLabel(path, row);
  return row;
}

/** Stores (or replaces) an already checked label in the SQLite store at `path`. @throws {AuditStoreError} */
export function storeClientLabel(path: string, row: ClientLabel): void {
  const db = openAuditMaintenance(path);
  try {
    db.prepare(
      `INSERT INTO client_labels (client, name, contact, updated_at) VALUES (@client, @name, @contact, @updated_at)
       ON CONFLICT (client) DO UPDATE SET name = excluded.name, contact = excluded.contact, updated_at = excluded.updated_at`,
    ).run(row);
  } catch (error) {
    throw new AuditStoreError('unreadable', path, `cannot store the label: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  } finally {
    db.close();
  }
}

/** Deletes the label of `client`; true when there was one. @throws {AuditStoreError} */
export function removeClientLabel(path: string, client: string): boolean {
  const db = openAuditMaintenance(path);
  try {
    return db.prepare('DELETE FROM client_labels WHERE client = ?').run(client).changes > 0;
  } finally {
    db.close();
  }
}
