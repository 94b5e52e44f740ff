/**
 * The PostgreSQL {@link AuditBackend} (the fleet store, issue #19). The `pg` client is loaded
 * only when a method runs (a SQLite user never loads it); the writer's thread loads its own.
 */
import type { AuditBackend } from '../backend.js';
import { PG_WRITER_THREAD } from './writer-spec.js';

/** The PostgreSQL store at `url`. Opens nothing until a method is called. */
export function pgBackend(url: string): AuditBackend {
  const maintenance = () => import('./maintenance.js');
  return {
    dialect: 'postgres',
    writer: PG_WRITER_THREAD,
    async openReader() {
      const { openPgReader } = await import('./reader.js');
      return openPgReader(url);
    },
    async migrate() {
      return (await maintenance()).migratePgStore(url);
    },
    async prune(olderThanMs, now) {
      const { errorEvents, traffic, gaps } = await (await maintenance()).prunePgStore(url, olderThanMs, now);
      return { errorEvents, traffic, gaps };
    },
    async previewPrune(olderThanMs, now) {
      return (await maintenance()).previewPgPrune(url, olderThanMs, now);
    },
    async forget(pseudonymizer, emailOrPhone) {
      return (await maintenance()).forgetPgSubject(url, pseudonymizer, emailOrPhone);
    },
    async setClientLabel(label) {
      await (await maintenance()).setPgClientLabel(url, label);
    },
    async removeClientLabel(client) {
      return (await maintenance()).removePgClientLabel(url, client);
    },
    async setIssueState(row) {
      await (await maintenance()).setPgIssueState(url, row);
    },
  };
}
