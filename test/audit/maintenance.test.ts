import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createPseudonymizer, forgetSubject, migrate, openAuditSink, pruneOlderThan } from '../../src/audit/index.js';
import { captureLogger, makeEvent, rawDb, tempDir } from './helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

describe('pruneOlderThan()', () => {
  it('deletes exactly the error_events, traffic and gap rows older than the cutoff', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const sink = openAuditSink({ path: t.db, queueLimit: 20_000, logger: captureLogger(), handleSignals: false });
    // 12 006 events one hour apart, from 400 days ago: more than two delete chunks are old.
    const ages: number[] = [];
    for (let i = 0; i < 12_006; i++) {
      const at = NOW - 400 * DAY + i * 3_600_000;
      ages.push(at);
      sink.write(makeEvent(i, { occurred_at: at }));
    }
    sink.recordTraffic([
      { minute: NOW - 91 * DAY, service: 's', skill: '', client: 'a', requests: 1, errors: 0, retries: 0 },
      { minute: NOW - 89 * DAY, service: 's', skill: '', client: 'a', requests: 1, errors: 0, retries: 0 },
    ]);
    await sink.close();
    expect(sink.health()).toMatchObject({ written: 12_006, dropped: 0 });
    const w = new BetterSqlite3(t.db);
    w.prepare("INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ('s', ?, ?, 3, 'queue_full')").run(NOW - 95 * DAY, NOW - 95 * DAY);
    w.prepare("INSERT INTO audit_gaps (service, started_at, ended_at, dropped, reason) VALUES ('s', ?, ?, 3, 'queue_full')").run(NOW - DAY, NOW - DAY);
    w.close();

    const cutoff = NOW - 90 * DAY;
    const old = ages.filter((at) => at < cutoff).length;
    expect(pruneOlderThan(t.db, 90 * DAY, NOW)).toEqual({ errorEvents: old, traffic: 1, gaps: 1 });
    const db = rawDb(t.db);
    expect(db.prepare('SELECT count(*) AS n, min(occurred_at) AS first FROM error_events').get()).toEqual({
      n: 12_006 - old,
      first: ages.find((at) => at >= cutoff),
    });
    expect(db.prepare('SELECT minute FROM traffic').all()).toEqual([{ minute: NOW - 89 * DAY }]);
    expect(db.prepare('SELECT ended_at FROM audit_gaps').all()).toEqual([{ ended_at: NOW - DAY }]);
    db.close();
    expect(() => pruneOlderThan(t.db, -1)).toThrow(RangeError);
  });
});

describe('forgetSubject()', () => {
  it("deletes every row of one subject, matched through the normalised pseudonym, and no other row", () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const p = createPseudonymizer('maintenance-test-secret-0123456789');
    const w = new BetterSqlite3(t.db);
    migrate(w);
    const insert = w.prepare('INSERT INTO error_events (error_id, occurred_at, service, protocol, rpc_method, code, subject, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const subjects = [p.subject('jane.doe@example.com'), p.subject('+15555550123'), null, p.subject('jane.doe@example.com'), p.subject('other@example.com')];
    subjects.forEach((subject, i) => insert.run(`err_${i}`, NOW + i, 's', 'aap', 'SendMessage', 'X', subject, p.keyId));
    w.close();
    const none = { otherKeyRows: 0, otherKeyIds: [] };
    expect(forgetSubject(t.db, p, '  JANE.DOE@example.com')).toEqual({ deleted: 2, ...none });
    expect(forgetSubject(t.db, p, '(555) 555-0123')).toEqual({ deleted: 1, ...none });
    expect(forgetSubject(t.db, p, 'nobody@example.com')).toEqual({ deleted: 0, ...none });
    const db = rawDb(t.db);
    expect(db.prepare('SELECT error_id FROM error_events ORDER BY error_id').all()).toEqual([{ error_id: 'err_2' }, { error_id: 'err_4' }]);
    db.close();
    expect(() => forgetSubject(t.db, p, 'not a contact')).toThrow(TypeError);
  });

  it('counts, with their key ids, the rows with a subject written under other keys, which it cannot match', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const current = createPseudonymizer('maintenance-test-secret-0123456789');
    const old = createPseudonymizer('maintenance-old-secret-9876543210ab');
    const older = createPseudonymizer('maintenance-older-secret-00112233445');
    expect(new Set([current.keyId, old.keyId, older.keyId]).size).toBe(3);
    const w = new BetterSqlite3(t.db);
    migrate(w);
    const insert = w.prepare('INSERT INTO error_events (error_id, occurred_at, service, protocol, rpc_method, code, subject, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const rows: [string | null, string | null][] = [
      [current.subject('jane.doe@example.com'), current.keyId],
      [old.subject('jane.doe@example.com'), old.keyId], // the same customer under the old key: not matchable
      [old.subject('other@example.com'), old.keyId],
      [older.subject('+15555550123'), older.keyId],
      [null, old.keyId], // no subject: nothing to check
      [current.subject('other@example.com'), current.keyId],
    ];
    rows.forEach(([subject, keyId], i) => insert.run(`err_${i}`, NOW + i, 's', 'aap', 'SendMessage', 'X', subject, keyId));
    w.close();
    const result = forgetSubject(t.db, current, 'jane.doe@example.com');
    expect(result).toEqual({ deleted: 1, otherKeyRows: 3, otherKeyIds: [old.keyId, older.keyId].sort() });
  });
});
