/**
 * The demo's read-back, on a seeded audit database whose every row is known (test/triage/seed.ts):
 * the report's counts come from the triage functions, flag counts are labelled as flagged errors,
 * a bare JSON-RPC code carries its meaning, and the "is this a demo database" check refuses
 * stores of other services.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notADemoDatabase } from '../../src/cli/demo/command.js';
import { DEMO_DEFAULTS } from '../../src/demo/constants.js';
import { analyseDemo, renderDemoReport, type DemoAnalysis } from '../../src/cli/demo/report.js';
import { MIN, RATE_CLIENT, SEED_COUNTS, STORM_CLIENT, T0, createStore, event, insertEvents, insertTraffic, seededStore } from '../triage/seed.js';

let store: ReturnType<typeof seededStore>;
let analysis: DemoAnalysis;
let report: string;

beforeAll(async () => {
  store = seededStore();
  // One DMC-12 auth failure as the demo dealer records it (spec/dmc12-errors.txt: -32001, HTTP 401).
  const db = new Database(store.path);
  insertEvents(db, [
    event({ occurred_at: T0 + 45 * MIN, service: DEMO_DEFAULTS.dmc12Service, protocol: 'dmc12', rpc_method: 'tools/call', code: '-32001', jsonrpc_code: -32001, http_status: 401, retryable: false }),
  ]);
  db.close();
  analysis = (await analyseDemo(store.path, [], { since: T0 - MIN, until: T0 + 60 * MIN }));
  report = renderDemoReport({ dbLabel: store.path, durationMs: 15_000, aapBaseUrl: 'http://127.0.0.1:1', dmc12RpcUrl: 'http://127.0.0.1:2/rpc', buyers: [] }, analysis);
});

afterAll(() => store?.cleanup());

describe('analyseDemo + renderDemoReport', () => {
  it('counts every error row of the window, by protocol and code', () => {
    expect(analysis.errors).toBe(SEED_COUNTS.total + 1);
    const count = (protocol: string, code: string) => analysis.codes.find((c) => c.protocol === protocol && c.code === code)?.count;
    expect(count('aap', 'SCHEMA_VALIDATION_FAILED')).toBe(SEED_COUNTS.storm);
    expect(count('aap', 'RATE_LIMITED')).toBe(SEED_COUNTS.rate + SEED_COUNTS.healthy);
    expect(count('dmc12', '-32001')).toBe(1);
    expect(analysis.codes.reduce((n, c) => n + c.count, 0)).toBe(analysis.errors);
  });

  it('labels a storm\'s flag counts as flagged errors, with the counts of the seeded retries', () => {
    // STORM_CLIENT: 60 retries, each flagged retried_non_retryable + no_backoff; RATE_CLIENT: 36 retries, ignored_retry_after + no_backoff.
    expect(report).toContain('    flagged errors: retried_non_retryable 60, no_backoff 60\n');
    // …and RATE_CLIENT's 12 rows past attempt 5 (the attempt cap), as findStorms counts them.
    expect(report).toContain('    flagged errors: ignored_retry_after 36, no_backoff 36; 12 attempts over the cap\n');
    expect(report).toContain('Retry storms found: 2\n');
  });

  it('shows storm clients in the short form of the incident draft subject', () => {
    expect(report).toMatch(new RegExp(`^  storm-\\S+  client ${STORM_CLIENT.slice(0, 8)}$`, 'm'));
    expect(report).toMatch(new RegExp(`^  storm-\\S+  client ${RATE_CLIENT.slice(0, 8)}$`, 'm'));
  });

  it('gives a bare JSON-RPC code its meaning (DMC-12 -32001: bad bearer token, HTTP 401)', () => {
    const line = report.split('\n').find((l) => /^\s+dmc12\s+-32001\s/.test(l)) ?? '';
    expect(line).toMatch(/\s1 {2}— .*bearer token.*HTTP 401/);
    // Named codes speak for themselves.
    const named = report.split('\n').find((l) => /^\s+aap\s+SCHEMA_VALIDATION_FAILED\s/.test(l)) ?? '';
    expect(named).toMatch(/\s80$/);
  });

  it('states the number of dealer agents the demo runs', () => {
    expect(report.split('\n')[0]).toBe('aap-triage demo: 15 s of traffic from 0 buyer agents to 2 dealer agents');
  });
});

describe('notADemoDatabase', () => {
  it('refuses a store with rows of another service, naming it', async () => {
    expect((await notADemoDatabase(store.path))).toBe(`${store.path} holds audit rows of service 'dealer-test', not only the demo's`);
  });

  it('accepts a missing file, an empty store and a store holding only the demo services\' rows', async () => {
    expect((await notADemoDatabase(join(store.dir, 'nothing-here.db')))).toBeNull();
    const empty = join(store.dir, 'empty.db');
    createStore(empty).close();
    expect((await notADemoDatabase(empty))).toBeNull();
    const demo = join(store.dir, 'demo.db');
    const db = createStore(demo);
    insertEvents(db, [
      event({ occurred_at: T0, service: DEMO_DEFAULTS.aapService }),
      event({ occurred_at: T0 + 1, service: DEMO_DEFAULTS.dmc12Service, protocol: 'dmc12', code: 'RATE_LIMITED' }),
    ]);
    insertTraffic(db, [{ minute: T0, service: DEMO_DEFAULTS.aapService, skill: 'inventory.search', client: STORM_CLIENT, requests: 3, errors: 1, retries: 0 }]);
    db.close();
    expect((await notADemoDatabase(demo))).toBeNull();
    rmSync(demo, { force: true });
  });

  it('refuses a store holding traffic counters but no demo errors', async () => {
    const other = join(store.dir, 'traffic-only.db');
    const db = createStore(other);
    insertTraffic(db, [{ minute: T0, service: 'dealer-prod', skill: 'inventory.search', client: STORM_CLIENT, requests: 3, errors: 0, retries: 0 }]);
    db.close();
    expect((await notADemoDatabase(other))).toBe(`${other} holds traffic counters but no demo errors`);
  });
});
