/** The SQLite {@link AuditBackend} (the embedded default): one file, wrapping the synchronous functions of the audit folder. */
import type { AuditBackend } from '../backend.js';
import { migrateStore } from '../inspect.js';
import { storeIssueState } from '../issue-states.js';
import { removeClientLabel, storeClientLabel } from '../labels.js';
import { forgetSubject, previewPrune, pruneOlderThan } from '../maintenance.js';
import { openReadOnly } from '../reader.js';
import { sqliteReader } from './reader.js';
import { SQLITE_WRITER_THREAD } from './writer-spec.js';

/** The SQLite store at file `path`. Opens nothing until a method is called. */
export function sqliteBackend(path: string): AuditBackend {
  return {
    dialect: 'sqlite',
    writer: SQLITE_WRITER_THREAD,
    async openReader() {
      const { db, file } = openReadOnly(path, false);
      return sqliteReader(db, file);
    },
    async migrate() {
      return { ...migrateStore(path), notes: [] };
    },
    async prune(olderThanMs, now) {
      return pruneOlderThan(path, olderThanMs, now);
    },
    async previewPrune(olderThanMs, now) {
      return previewPrune(path, olderThanMs, now);
    },
    async forget(pseudonymizer, emailOrPhone) {
      return forgetSubject(path, pseudonymizer, emailOrPhone);
    },
    async setClientLabel(label) {
      storeClientLabel(path, label);
    },
    async removeClientLabel(client) {
      return removeClientLabel(path, client);
    },
    async setIssueState(row) {
      storeIssueState(path, row);
    },
  };
}
