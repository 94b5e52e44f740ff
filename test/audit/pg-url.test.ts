// Choosing the store from --db / AAP_TRIAGE_DB, and keeping PostgreSQL credentials out of what is
// shown (issue #19): pure helpers, no server needed.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fallbackHealthFilePath } from '../../src/audit/health.js';
import { openAuditSink, openFailedSink } from '../../src/audit/index.js';
import { captureLogger } from './helpers.js';
import { dbTargetProblem, defaultKeyFilePath, healthFilePath, isPostgresUrl, nodePgConnectionString, postgresUrlForCommand, redactPostgresUrl, resolveDbPath, storeLabel } from '../../src/audit/paths.js';
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
    // A URL that does not parse is still named, without its password.
    expect(redactPostgresUrl('postgres://app:s3cret@h:notaport/db?password=x')).toBe('postgres://app@h:notaport/db');
    expect(redactPostgresUrl('not a url')).toBe('postgres://(unparsable URL)');
  });

  it('names the health and key files after the redacted URL, so no secret is in a file name', () => {
    const a = healthFilePath('postgres://app:one@h/db');
    expect(a).toBe(healthFilePath('postgres://app:two@h/db'));
    expect(a).not.toContain('one');
    expect(defaultKeyFilePath('postgres://app:one@h/db')).toMatch(/\.aap-triage\/pg-[0-9a-f]{16}\.key$/);
    // sslmode is shown in hints, but the files stay where they were.
    expect(healthFilePath('postgres://app@h/db?sslmode=require')).toBe(a);
  });
});

describe('postgresUrlForCommand', () => {
  it('keeps sslmode and uselibpqcompat, so a hint run as printed connects the same way, and nothing secret', () => {
    expect(postgresUrlForCommand('postgresql://app:s3cret@db.example.com:6432/audit?password=other&sslmode=require&sslpassword=x&uselibpqcompat=true')).toBe(
      'postgres://app@db.example.com:6432/audit?sslmode=require&uselibpqcompat=true',
    );
    expect(postgresUrlForCommand('postgres://app:s3cret@h/db?application_name=x')).toBe('postgres://app@h/db');
    expect(postgresUrlForCommand('postgres://app@h/db')).toBe('postgres://app@h/db');
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

describe('dbTargetProblem', () => {
  const SECRET = 'url-s3cret';
  it.each([
    [`pg://postgres:${SECRET}@127.0.0.1/audit`, /^pg:\/\/postgres@127\.0\.0\.1\/audit: the scheme pg:\/\/ is not a PostgreSQL URL \(use postgres:\/\/ or postgresql:\/\//],
    [`mysql://u:${SECRET}@h/db`, /the scheme mysql:\/\/ is not a PostgreSQL URL/],
    [`postgres://u:${SECRET}@h:notaport/db`, /^postgres:\/\/u@h:notaport\/db: the port 'notaport' is not a number from 1 to 65535$/],
    [`postgres://u:${SECRET}@h:70000/db`, /the port '70000' is not a number from 1 to 65535/],
    [`postgresql://u:${SECRET}@h/db?sslmode=requre`, /^postgres:\/\/u@h\/db: sslmode 'requre' is unknown \(use one of disable, allow, prefer, require, verify-ca, verify-full, no-verify\)$/],
    [`postgres://u:${SECRET}@[::1/db`, /is not a valid PostgreSQL URL/],
  ])('%s: one line naming the problem, without the password', (target, expected) => {
    const problem = dbTargetProblem(target);
    expect(problem).toMatch(expected);
    expect(problem).not.toContain(SECRET);
    expect(problem).not.toContain('\n');
  });

  it('accepts PostgreSQL URLs, IPv6 hosts, every sslmode node-postgres knows, and plain paths', () => {
    for (const ok of ['postgres://u:p@h:5432/db', 'postgresql://[::1]:5432/db', 'postgres://h/db?sslmode=verify-full', 'postgres://h/db?sslmode=no-verify', './x.db', '/tmp/a:b.db']) {
      expect(dbTargetProblem(ok), ok).toBeNull();
    }
  });

  it('keeps a mistyped URL as given instead of resolving it to a file pg:/…', () => {
    expect(resolveDbPath('pg://h/db', {})).toBe('pg://h/db');
    expect(storeLabel(`pg://u:${SECRET}@h/db`)).toBe('pg://u@h/db');
  });
});

describe('nodePgConnectionString', () => {
  it('writes prefer, require and verify-ca as the verify-full node-postgres 8 applies (no SECURITY WARNING), leaving other URLs alone', () => {
    expect(new URL(nodePgConnectionString('postgres://u:p@h/db?sslmode=require')).searchParams.get('sslmode')).toBe('verify-full');
    expect(new URL(nodePgConnectionString('postgres://h/db?sslmode=prefer&application_name=x')).searchParams.get('application_name')).toBe('x');
    expect(nodePgConnectionString('postgres://h/db?sslmode=require&uselibpqcompat=true')).toBe('postgres://h/db?sslmode=require&uselibpqcompat=true');
    expect(nodePgConnectionString('postgres://h/db?sslmode=disable')).toBe('postgres://h/db?sslmode=disable');
    expect(nodePgConnectionString('postgres://h/db')).toBe('postgres://h/db');
  });
});

describe('a writer given a mistyped store URL', () => {
  it('stops with one error line naming the problem, writes no file named pg:/…, and shows no password', async () => {
    const logger = captureLogger();
    const target = 'pg://writer:url-s3cret@127.0.0.1/audit';
    const sink = openAuditSink({ path: target, service: 'pg-url-test', logger, handleSignals: false });
    try {
      expect(sink.health()).toMatchObject({ state: 'failed', reason: expect.stringMatching(/the scheme pg:\/\/ is not a PostgreSQL URL/) });
      expect(logger.lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^audit: pg:\/\/writer@127\.0\.0\.1\/audit: the scheme pg:\/\//)]);
      expect(JSON.stringify(logger.lines)).not.toContain('url-s3cret');
      expect(existsSync(resolve('pg:'))).toBe(false);
    } finally {
      await sink.close();
      rmSync(fallbackHealthFilePath(storeLabel(target), 'pg-url-test', process.pid), { force: true });
    }
  });
});

describe('a writer stopped before it opens (a key that cannot be loaded)', () => {
  it('names the store without its password in the error line and in the health file', async () => {
    const logger = captureLogger();
    const target = 'postgres://writer:fs-s3cret@127.0.0.1:5432/audit?sslmode=bogus';
    const sink = openFailedSink({ path: target, reason: 'cannot load the pseudonym key', service: 'pg-url-test', logger });
    const file = fallbackHealthFilePath(storeLabel(target), 'pg-url-test', process.pid);
    try {
      expect(logger.lines).toHaveLength(1);
      expect(logger.lines[0]?.obj).toEqual({ path: 'postgres://writer@127.0.0.1:5432/audit' });
      expect(JSON.stringify(logger.lines)).not.toContain('fs-s3cret');
      expect(readFileSync(file, 'utf8')).not.toContain('fs-s3cret');
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ state: 'failed', path: 'postgres://writer@127.0.0.1:5432/audit' });
    } finally {
      await sink.close();
      rmSync(file, { force: true });
    }
  });
});
