/**
 * `aap-triage alerts` against a real Alertmanager (issue 30): Debian's prometheus-alertmanager on
 * a free loopback port, routing to a webhook the test serves, grouped by alertname and service.
 * A store (SQLite file and PostgreSQL database) holds a retry storm that is still going, a new
 * issue and a regressed one; `alerts --once` posts them, the webhook receives them grouped, a
 * second run (a restart: state comes from the store alone) leaves Alertmanager holding the same
 * alerts with the same start, and a run after the storm has ended resolves them.
 *
 * Without the binary: fails when CI=true (CI installs it), skips locally with the reason.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.js';
import { ISSUE_HOUR_MS } from '../../src/audit/schema.js';
import type { ErrorEvent, TrafficSample } from '../../src/protocol/error-event.js';
import { findAlertmanager, startAlertmanager, type RunningAlertmanager } from '../helpers/alertmanager.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { freePort } from '../dashboards/prometheus.js';
import { event, MIN } from '../triage/seed.js';

const AM_BIN = findAlertmanager();
const IN_CI = process.env.CI === 'true';
const MISSING = 'Alertmanager binary not found: apt-get install prometheus-alertmanager (Debian package), or set ALERTMANAGER_BIN';
const runIt = AM_BIN !== null || IN_CI;
if (!runIt) console.warn(`skipping test/cli/alerts.test.ts: ${MISSING}`);

const STORM_CLIENT = 'stormClientAAAAAAAAAAA';
const HEALTHY_CLIENT = 'healthyClientCCCCCCCCC';
const TRACE_URL = 'https://tempo.example.com/trace/{trace_id}';
const env: NodeJS.ProcessEnv = { AAP_TRIAGE_TRACE_URL: TRACE_URL };
const hex32 = (n: number): string => n.toString(16).padStart(32, '0');
const iso = (ms: number): string => new Date(ms).toISOString();

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(now: () => number, args: string[], signal?: AbortSignal, onErr?: (err: string) => void, onOut?: (out: string) => void): Promise<Run> {
  let out = '';
  let err = '';
  const code = await main(['node', 'aap-triage', ...args], {
    stdout: {
      write: (s: string | Uint8Array) => {
        out += String(s);
        onOut?.(out);
      },
    },
    stderr: {
      write: (s: string | Uint8Array) => {
        err += String(s);
        onErr?.(err);
      },
    },
    env,
    now,
    ...(signal ? { signal } : {}),
  });
  return { code, out, err };
}

/**
 * The store's rows, relative to `now0` (Alertmanager keeps real time):
 * - a storm: STORM_CLIENT retries a non-retryable SCHEMA_VALIDATION_FAILED on lead.submit, the
 *   five minutes before the current one, 4 chains × 4 attempts a minute, every retry flagged;
 * - a new issue: one VEHICLE_NOT_FOUND of HEALTHY_CLIENT two minutes ago (the storm's errors
 *   are a new issue too);
 * - a regressed issue: UPSTREAM_UNAVAILABLE on another service 30 h ago, then again 3 minutes ago.
 */
function rows(now0: number): { events: ErrorEvent[]; traffic: TrafficSample[]; stormStart: number; vehicleAt: number; regressedAt: number } {
  const minute = Math.floor(now0 / MIN) * MIN;
  const stormStart = minute - 5 * MIN;
  const events: ErrorEvent[] = [];
  const traffic: TrafficSample[] = [];
  for (let m = 0; m < 5; m++) {
    for (let chain = 0; chain < 4; chain++) {
      for (let attempt = 1; attempt <= 4; attempt++) {
        events.push(
          event({
            occurred_at: stormStart + m * MIN + chain * 10_000 + attempt * 500,
            trace_id: hex32(0x1000 + m * 16 + chain * 4 + attempt),
            skill: 'lead.submit',
            code: 'SCHEMA_VALIDATION_FAILED',
            jsonrpc_code: -32602,
            retryable: false,
            client: STORM_CLIENT,
            fingerprint: `fpStorm${m}${chain}`.padEnd(22, 'x'),
            attempt,
            retry_flags: attempt > 1 ? ['retried_non_retryable', 'no_backoff'] : [],
          }),
        );
      }
    }
    traffic.push({ minute: stormStart + m * MIN, service: 'dealer-test', skill: 'lead.submit', client: STORM_CLIENT, requests: 16, errors: 16, retries: 12 });
  }
  const vehicleAt = minute - 2 * MIN + 5_000;
  events.push(event({ occurred_at: vehicleAt, trace_id: hex32(0x3001), skill: 'inventory.vehicle', code: 'VEHICLE_NOT_FOUND', jsonrpc_code: -32004, retryable: false, client: HEALTHY_CLIENT }));
  const regressedAt = minute - 3 * MIN + 7_000;
  for (const at of [minute - 30 * ISSUE_HOUR_MS, regressedAt]) {
    events.push(event({ occurred_at: at, service: 'dealer-b', protocol: 'dmc12', rpc_method: 'tools/call', skill: 'search_inventory', code: 'UPSTREAM_UNAVAILABLE', jsonrpc_code: null, retryable: true, client: HEALTHY_CLIENT }));
  }
  return { events, traffic, stormStart, vehicleAt, regressedAt };
}

/** The storm id as docs/cli.md defines it: storm-<UTC yyyymmddThhmm>Z-<8 hex>. */
const stormIdPrefix = (start: number): string => `storm-${iso(start).slice(0, 16).replace(/[-:]/g, '')}Z-`;

interface Alert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
}

describe.runIf(runIt).each(STORE_KINDS)('aap-triage alerts on a %s store', (kind) => {
  let store: TestStore;
  let am: RunningAlertmanager;
  let now0: number;
  let data: ReturnType<typeof rows>;

  beforeAll(async () => {
    if (!AM_BIN) throw new Error(`CI=true but ${MISSING}`);
    store = await createTestStore(kind);
    now0 = Date.now();
    data = rows(now0);
    await store.insertEvents(data.events);
    await store.insertTraffic(data.traffic);
    am = await startAlertmanager(AM_BIN, ['alertname', 'service']);
  }, 60_000);

  afterAll(async () => {
    await am?.stop();
    await store?.cleanup();
  });

  it('--dry-run prints one alert per storm and per new or regressed issue, with stable labels and annotations', async () => {
    const r = await cli(() => now0, ['alerts', '--once', '--dry-run', '--db', store.target]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const alerts = JSON.parse(r.out) as Alert[];
    const by = (name: string): Alert[] => alerts.filter((a) => a.labels.alertname === name);
    expect(alerts.map((a) => a.labels.alertname).sort()).toEqual(['AapTriageClientRetryStorm', 'AapTriageIssueRegressed', 'AapTriageNewIssue', 'AapTriageNewIssue']);

    const storm = by('AapTriageClientRetryStorm')[0]!;
    expect(Object.keys(storm.labels).sort()).toEqual(['alertname', 'client', 'service', 'severity', 'storm_id']);
    expect(storm.labels).toMatchObject({ severity: 'warning', service: 'dealer-test', client: STORM_CLIENT.slice(0, 8) });
    expect(storm.labels.storm_id?.startsWith(stormIdPrefix(data.stormStart))).toBe(true);
    expect(storm.startsAt).toBe(iso(data.stormStart));
    // Still holding: endsAt is renewed ahead of now (4 periods of the default 1 m).
    expect(storm.endsAt).toBe(iso(now0 + 4 * MIN));
    expect(storm.annotations.draft).toContain(`draft --storm ${storm.labels.storm_id}`);
    expect(storm.annotations.command).toContain(`storms --since ${iso(data.stormStart)}`);
    expect(storm.annotations.trace).toMatch(/^https:\/\/tempo\.example\.com\/trace\/0{28}1[0-9a-f]{3}$/);
    expect(storm.generatorURL).toBe(storm.annotations.trace);
    expect(storm.annotations.runbook_url).toBe('https://aap-triage.example/docs/alerts.md#aaptriageclientretrystorm');
    expect(storm.annotations.summary).toContain('lead.submit');
    // 80 calls, 60 retries, 80 errors over the 5 minutes.
    expect(storm.annotations.description).toMatch(/^60 retries of 80 calls \(75 %\), 80 errors \(SCHEMA_VALIDATION_FAILED\)/);

    const vehicle = by('AapTriageNewIssue').find((a) => a.labels.code === 'VEHICLE_NOT_FOUND')!;
    expect(Object.keys(vehicle.labels).sort()).toEqual(['alertname', 'code', 'issue_key', 'protocol', 'service', 'severity']);
    expect(vehicle.labels).toMatchObject({ service: 'dealer-test', protocol: 'aap' });
    expect(vehicle.labels.issue_key).toMatch(/^[0-9a-f]{16}$/);
    expect(vehicle.startsAt).toBe(iso(data.vehicleAt));
    expect(vehicle.annotations.command).toContain(`search issue:${vehicle.labels.issue_key}`);
    expect(vehicle.annotations.draft).toContain(`draft --query issue:${vehicle.labels.issue_key}`);
    expect(vehicle.generatorURL).toBe(`https://tempo.example.com/trace/${hex32(0x3001)}`);

    const regressed = by('AapTriageIssueRegressed')[0]!;
    expect(regressed.labels).toMatchObject({ service: 'dealer-b', protocol: 'dmc12', code: 'UPSTREAM_UNAVAILABLE' });
    expect(regressed.startsAt).toBe(iso(data.regressedAt));
    // No trace id on those rows: the generator URL is the runbook section.
    expect(regressed.generatorURL).toBe('https://aap-triage.example/docs/alerts.md#aaptriageissueregressed');
    // Caller-sent ids never become labels: no fingerprint, trace or error id among the label values.
    for (const a of alerts) for (const v of Object.values(a.labels)) expect(v).not.toMatch(/^(fpStorm|err_|[0-9a-f]{32}$)/);
  });

  it('posts them with --once; Alertmanager delivers them grouped by alertname and service', async () => {
    const r = await cli(() => now0, ['alerts', '--once', '--alertmanager', am.url, '--db', store.target]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${iso(now0)} posted 4 alerts (4 firing, 0 resolved)\n`);
    const group = (alertname: string, service: string) => (n: (typeof am.notifications)[number]) =>
      n.status === 'firing' && n.groupLabels.alertname === alertname && n.groupLabels.service === service;
    // A new group whose alert started longer than group_wait ago is flushed at once, so its second
    // alert may come one notification later; each notification carries all of the group's alerts.
    const newIssuesNotified = (ns: readonly (typeof am.notifications)[number][]) => ns.some((n) => group('AapTriageNewIssue', 'dealer-test')(n) && n.alerts.length >= 2);
    await am.waitFor((ns) => newIssuesNotified(ns) && ns.some(group('AapTriageClientRetryStorm', 'dealer-test')) && ns.some(group('AapTriageIssueRegressed', 'dealer-b')));
    const newIssues = [...am.notifications].reverse().find(group('AapTriageNewIssue', 'dealer-test'))!;
    expect(newIssues.alerts.map((a) => a.labels.code).sort()).toEqual(['SCHEMA_VALIDATION_FAILED', 'VEHICLE_NOT_FOUND']);
    const storm = am.notifications.find(group('AapTriageClientRetryStorm', 'dealer-test'))!;
    expect(storm.alerts).toHaveLength(1);
    expect(Date.parse(storm.alerts[0]!.startsAt)).toBe(data.stormStart);
  });

  it('after a restart sends the same alerts again: Alertmanager still holds four, with their first start', async () => {
    const r = await cli(() => now0 + 30_000, ['alerts', '--once', '--alertmanager', am.url, '--db', store.target]);
    expect(r.code, r.err).toBe(0);
    const held = (await (await fetch(`${am.url}/api/v2/alerts`)).json()) as (Alert & { status: { state: string } })[];
    expect(held).toHaveLength(4);
    expect(Date.parse(held.find((a) => a.labels.alertname === 'AapTriageClientRetryStorm')?.startsAt ?? '')).toBe(data.stormStart);
    expect(held.every((a) => a.status.state === 'active')).toBe(true);
  });

  it('resolves them once the storm and the issues have been quiet for the hold period', async () => {
    const later = now0 + 11 * MIN;
    const r = await cli(() => later, ['alerts', '--once', '--alertmanager', am.url, '--db', store.target]);
    expect(r.err).toBe('');
    expect(r.out).toBe(`${iso(later)} posted 4 alerts (0 firing, 4 resolved)\n`);
    await am.waitFor((ns) => ns.some((n) => n.status === 'resolved' && n.groupLabels.alertname === 'AapTriageClientRetryStorm'));
    const resolved = am.notifications.find((n) => n.status === 'resolved' && n.groupLabels.alertname === 'AapTriageClientRetryStorm')!;
    // endsAt is when the storm's last stormy minute ended.
    expect(resolved.alerts[0]?.status).toBe('resolved');
    expect(Date.parse(resolved.alerts[0]?.endsAt ?? '')).toBe(data.stormStart + 5 * MIN);
  });

  it('refused by Alertmanager (404 on a wrong path): one stderr line and exit 3 with --once', async () => {
    const r = await cli(() => now0, ['alerts', '--once', '--alertmanager', `${am.url}/nope`, '--db', store.target]);
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^aap-triage: alerts: Alertmanager at http:\/\/127\.0\.0\.1:\d+\/nope\/api\/v2\/alerts answered 404[^\n]*\n$/);
  });
});

describe('aap-triage alerts with bad input', () => {
  let store: TestStore;
  let closedPort: number;
  beforeAll(async () => {
    store = await createTestStore('sqlite');
    const now0 = Date.now();
    const data = rows(now0);
    await store.insertEvents(data.events);
    await store.insertTraffic(data.traffic);
    closedPort = await freePort();
  });
  afterAll(async () => {
    await store?.cleanup();
  });

  it('an unreachable Alertmanager is one stderr line and exit 3 with --once, nothing thrown', async () => {
    const r = await cli(Date.now, ['alerts', '--once', '--alertmanager', `http://127.0.0.1:${closedPort}`, '--db', store.target]);
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
    expect(r.err).toBe(`aap-triage: alerts: cannot reach Alertmanager at http://127.0.0.1:${closedPort}/api/v2/alerts: ECONNREFUSED\n`);
  });

  it('without --once keeps going: one stderr line per period, exit 0 when stopped', async () => {
    const stop = new AbortController();
    const r = await cli(Date.now, ['alerts', '--every', '1s', '--alertmanager', `http://127.0.0.1:${closedPort}`, '--db', store.target], stop.signal, (err) => {
      if (err.split('\n').length > 3) stop.abort();
    });
    expect(r.code).toBe(0);
    const lines = r.err.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(l).toBe(`aap-triage: alerts: cannot reach Alertmanager at http://127.0.0.1:${closedPort}/api/v2/alerts: ECONNREFUSED`);
  });

  it('an unreadable store (its PostgreSQL database dropped mid-run) is one stderr line per period, and the loop goes on', async () => {
    const pgStore = await createTestStore('postgres');
    const data = rows(Date.now());
    await pgStore.insertEvents(data.events);
    await pgStore.insertTraffic(data.traffic);
    const stop = new AbortController();
    let dropping: Promise<void> | undefined;
    const r = await cli(
      Date.now,
      ['alerts', '--every', '1s', '--dry-run', '--db', pgStore.target],
      stop.signal,
      (err) => {
        if (err.split('\n').filter(Boolean).length >= 2) stop.abort();
      },
      () => {
        dropping ??= pgStore.cleanup();
      },
    );
    await dropping;
    expect(r.code).toBe(0);
    // The first period printed its alerts; every later one says it could not read the store.
    expect((JSON.parse(r.out) as unknown[]).length).toBe(4);
    const lines = r.err.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l).toMatch(/^aap-triage: alerts: cannot read the store: \S/);
  });

  it.each([
    [['alerts', '--once'], /needs an Alertmanager URL/],
    [['alerts', '--once', '--alertmanager', 'ftp://example.com'], /not an http\(s\) URL/],
    [['alerts', '--once', '--dry-run', '--every', '0s'], /--every must be a duration of at least 1s/],
  ])('refuses %j with a usage error (exit 2)', async (args, message) => {
    const r = await cli(Date.now, [...args, '--db', store.target]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('reads AAP_TRIAGE_ALERTMANAGER_URL when --alertmanager is not given', async () => {
    env.AAP_TRIAGE_ALERTMANAGER_URL = `http://127.0.0.1:${closedPort}`;
    try {
      const r = await cli(Date.now, ['alerts', '--once', '--db', store.target]);
      expect(r.code).toBe(3);
      expect(r.err).toContain(`127.0.0.1:${closedPort}/api/v2/alerts`);
    } finally {
      delete env.AAP_TRIAGE_ALERTMANAGER_URL;
    }
  });
});

describe.runIf(runIt)('the Alertmanager route in docs/alerts.md', () => {
  const AMTOOL = AM_BIN ? join(AM_BIN, '..', 'amtool') : null;
  it('passes amtool check-config and routes each kind of alert to the receiver the page says', () => {
    if (!AMTOOL || !existsSync(AMTOOL)) throw new Error(`CI=true but amtool is missing beside ${AM_BIN}`);
    const docs = readFileSync(new URL('../../docs/alerts.md', import.meta.url), 'utf8');
    const yaml = /```yaml\n(# alertmanager\.yml\n[\s\S]*?)```/.exec(docs)?.[1];
    expect(yaml).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'aap-triage-amtool-'));
    try {
      const file = join(dir, 'alertmanager.yml');
      writeFileSync(file, yaml!);
      const check = spawnSync(AMTOOL, ['check-config', file], { encoding: 'utf8' });
      expect(check.status, check.stdout + check.stderr).toBe(0);
      const route = (...labels: string[]): string => spawnSync(AMTOOL, ['config', 'routes', 'test', `--config.file=${file}`, ...labels], { encoding: 'utf8' }).stdout.trim();
      expect(route('alertname=AapTriageAuditRecordsLost', 'severity=critical', 'job=dealer-a')).toBe('dealer-oncall-pager');
      expect(route('alertname=AapTriageDealerFaultEpisode', 'severity=critical', 'service=dealer-a')).toBe('dealer-oncall-pager');
      expect(route('alertname=AapTriageClientRetryStorm', 'severity=warning', 'service=dealer-a')).toBe('dealer-integrations-channel');
      expect(route('alertname=AapTriageNewIssue', 'severity=warning', 'service=dealer-a')).toBe('dealer-integrations-channel');
      expect(route('alertname=AapTriageErrorRatioHigh', 'severity=warning', 'job=dealer-a')).toBe('dealer-oncall-channel');
      expect(route('alertname=NodeDown', 'severity=critical')).toBe('default');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

if (!runIt) it.skip(`real-Alertmanager alerts: ${MISSING}`, () => undefined);
