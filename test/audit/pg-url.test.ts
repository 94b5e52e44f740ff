// Choosing the store from --db / AAP_TRIAGE_DB, and keeping PostgreSQL credentials out of what is
// shown (issue #19): pure helpers, no server needed.
import { describe, expect, it } from 'vitest';
import { defaultKeyFilePath, healthFilePath, isPostgresUrl, redactPostgresUrl, resolveDbPath, storeLabel } from '../../src/audit/paths.js';
import { describePgError, numberPlaceholders } from '../../src/audit/pg/sql.js';

describe('isPostgresUrl / resolveDbPath', () => {
  it.each([
    ['postgres://db.example.com/audit', true],
    ['postgresql://u:p@127.0.0.1:5432/audit', true],
    ['  POSTGRES://host/db', true],
    ['./aap-triage.db', false],
    ['/var/lib/postgres/audit.db', false],
    ['postgres.db', false],
  ])('%s → %s', (target, pg) => {
    expect(isPostgresUrl(target)).toBe(pg);
  });

  it('keeps a URL as given and resolves a path', () => {
    expect(resolveDbPath(undefined, { AAP_TRIAGE_DB: 'postgres://u:pw@h/db' })).toBe('postgres://u:pw@h/db');
    expect(resolveDbPath('x.db', {})).toMatch(/^\/.*\/x\.db$/);
  });
});

describe('redactPostgresUrl', () => {
  it('drops the password and every query parameter', () => {
    expect(redactPostgresUrl('postgresql://app:s3cret@db.example.com:6432/audit?sslmode=require&password=other')).toBe('postgres://app@db.example.com:6432/audit');
    expect(storeLabel('postgres://:onlypw@h/db')).toBe('postgres://h/db');
    expect(redactPostgresUrl('postgres://[bad')).toBe('postgres://(unparsable URL)');
  });

  it('names the health and key files after the redacted URL, so no secret is in a file name', () => {
    const a = healthFilePath('postgres://app:one@h/db');
    expect(a).toBe(healthFilePath('postgres://app:two@h/db'));
    expect(a).not.toContain('one');
    expect(defaultKeyFilePath('postgres://app:one@h/db')).toMatch(/\.aap-triage\/pg-[0-9a-f]{16}\.key$/);
  });
});

describe('numberPlaceholders', () => {
  it('numbers ? outside string literals and quoted names', () => {
    expect(numberPlaceholders(`SELECT ? AS "a?" FROM t WHERE x LIKE '%?%' ESCAPE '\\' AND y IN (?, ?)`)).toBe(
      `SELECT $1 AS "a?" FROM t WHERE x LIKE '%?%' ESCAPE '\\' AND y IN ($2, $3)`,
    );
  });
});

describe('describePgError', () => {
  it('keeps the code and scrubs URLs and password settings from the message', () => {
    const e = Object.assign(new Error('could not connect to postgres://app:s3cret@h/db (password=s3cret)\nmore'), { code: 'ECONNREFUSED' });
    expect(describePgError(e)).toEqual({ code: 'ECONNREFUSED', message: 'could not connect to postgres://app@h/db (password=***' });
  });
});
