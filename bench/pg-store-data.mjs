// The data set of bench/pg-store.bench.mjs's read part, built set-based in both stores at once
// (issue 31): N error rows over 30 days ending at BENCH_END, the matching per-minute `traffic`
// rows and the hourly issue summary, in a SQLite file and in a PostgreSQL database, identical.
//
// Each store gets its tables from its own migrations (MIGRATIONS / PG_MIGRATIONS), its secondary
// indexes dropped; then one INSERT … SELECT per million rows writes the rows from a number
// series (SQLite: a recursive CTE; PostgreSQL: generate_series), the indexes are rebuilt from
// their own definitions, `traffic` is one GROUP BY over the rows, and the issue summary is the
// store's own backfill (rebuildIssueHours / rebuildPgIssueHours: what the writers' per-batch
// upserts add up to). Both stores compute every value from the row number with the same integer
// hash (no random(): the two files must hold the same rows, and the bench checks that both give
// the same answers), so they are built side by side: SQLite in a child process
// (`node bench/pg-store-data.mjs sqlite <path> <rows>`, better-sqlite3 blocks its thread),
// PostgreSQL from the bench's process.
//
// The rows: 8 dealer services (AAP and A2A, busiest first) and 4 DMC-12 services; protocol, code
// and skill distributions of bench/triage-generate.mjs (issue keys by the store's own
// `issueKey`, ~900 issues); 5 000 clients, a few much busier than the rest; `err_` + UUIDv7 ids
// minted at the row's time, as the writer does (src/protocol/error-id.ts); 8 % retries; every
// 6 h a 15-minute storm in which half the rows are one client's retry chains (fingerprint `g…`).
import Database from 'better-sqlite3';
import { ISSUE_HOUR_MS, migrate } from '../dist/audit/schema.js';
import { rebuildIssueHours } from '../dist/audit/issue-hours.js';
import { issueKey } from '../dist/audit/issue-key.js';
import { ensurePartitions, migratePg, PG_MIGRATIONS } from '../dist/audit/pg/schema.js';
import { rebuildPgIssueHours } from '../dist/audit/pg/issue-hours.js';
import { A2A_CODES, AAP_CODES, AAP_SKILLS, BENCH_END, clientName, DMC_CODES, DMC_TOOLS, JSONRPC_CODES } from './triage-generate.mjs';

const DAY = 86_400_000;
export const DATA_DAYS = 30;
const START = BENCH_END - DATA_DAYS * DAY;
const DEALERS = ['dealer-east', 'dealer-west', 'dealer-north', 'dealer-south', 'dealer-central', 'dealer-coast', 'dealer-valley', 'dealer-metro'];
const DMC12 = ['mm-dmc12', 'mm-dmc12-eu', 'mm-dmc12-us', 'mm-dmc12-ap'];
const CLIENTS = 5000;
/** Buckets of the combination and client look-ups (the row's hash picks one). */
const COMBO_BUCKETS = 100_000;
const CLIENT_BUCKETS = 65_536;
const CHUNK = 1_000_000;
/** 2^31 − 1: every hash value is below it, so a product of two stays below 2^62 in both stores. */
const P = 2147483647;

/** Service weights: the first of a list busiest, the n-th 1/n as busy. */
const zipf = (names) => names.map((name, k) => [name, 1 / (k + 1)]);
const norm = (pairs) => {
  const total = pairs.reduce((s, [, w]) => s + w, 0);
  return pairs.map(([v, w]) => [v, w / total]);
};

/** Every (service, protocol, skill, code) the rows can have, its probability, its columns and its issue key. */
function combos() {
  const out = [];
  const add = (p, service, protocol, skill, [code, retryable, jsonrpc, http]) => {
    const rpcMethod = protocol === 'dmc12' ? 'tools/call' : protocol === 'jsonrpc' ? '_OTHER' : 'SendMessage';
    const violations = code.includes('VALIDATION') ? '[{"location":"/filters/*","keyword":"type"}]' : '[]';
    out.push({
      id: out.length,
      p,
      service,
      protocol,
      protocol_version: protocol === 'aap' ? '2.0' : protocol === 'a2a' ? '1.0' : protocol === 'dmc12' ? 'v0.3' : '2.0',
      rpc_method: rpcMethod,
      skill,
      code,
      legacy_error: protocol === 'dmc12' && !code.startsWith('-') ? code.toLowerCase() : null,
      jsonrpc_code: jsonrpc,
      http_status: http,
      retryable,
      violations,
      issue_key: issueKey({ service, protocol, rpc_method: rpcMethod, skill, code, violations: JSON.parse(violations), conformance: [] }),
      idem: skill === 'lead.submit' || skill === 'create_reservation' ? 1 : 0,
      subj: skill === 'lead.submit' ? 1 : 0,
    });
  };
  const table = (t) => norm(t.items);
  for (const [protocol, pp, services, codes, skills] of [
    ['aap', 0.6, DEALERS, AAP_CODES, AAP_SKILLS],
    ['a2a', 0.1, DEALERS, A2A_CODES, AAP_SKILLS],
    ['dmc12', 0.25, DMC12, DMC_CODES, DMC_TOOLS],
    ['jsonrpc', 0.05, DEALERS, JSONRPC_CODES, null],
  ]) {
    for (const [service, ps] of norm(zipf(services)))
      for (const [code, pc] of table(codes))
        for (const [skill, pk] of skills ? table(skills) : [[null, 1]]) add(pp * ps * pc * pk, service, protocol, skill, code);
  }
  // Storm combinations, STORM_BASE + 2 × dealer + (1 when non-retryable): see stormCombo.
  const stormBase = out.length;
  for (const service of DEALERS) {
    add(0, service, 'aap', 'inventory.search', ['RATE_LIMITED', 1, -32000, 200]);
    add(0, service, 'aap', 'lead.submit', ['SCHEMA_VALIDATION_FAILED', 0, -32602, 200]);
  }
  return { list: out, stormBase };
}

/** Bucket → combination id: each combination gets buckets in proportion to its probability (largest remainder). */
function comboBuckets(list) {
  const shares = list.map((c) => c.p * COMBO_BUCKETS);
  const counts = shares.map(Math.floor);
  let left = COMBO_BUCKETS - counts.reduce((a, b) => a + b, 0);
  const order = shares.map((s, i) => [s - Math.floor(s), i]).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) if (left-- > 0) counts[i]++;
  const out = [];
  counts.forEach((n, id) => {
    for (let k = 0; k < n; k++) out.push(id);
  });
  return out;
}

/** The two dialects' differences: hex digits of a non-negative integer, a real from an integer. */
const DIALECT = {
  sqlite: { hex: (x, w) => `printf('%0${w}x', ${x})`, hundredths: (x) => `(${x}) / 100.0` },
  postgres: { hex: (x, w) => `lpad(to_hex(${x}), ${w}, '0')`, hundredths: (x) => `(${x})::float8 / 100` },
};

/** A pseudo-random integer in [0, P) from integer `e` and salt `k`: an affine step, then two squarings mod P. */
function mix(e, k) {
  const x1 = `((${e}) * 48271 + ${k * 7919 + 1}) % ${P}`;
  const x2 = `((${x1}) * (${x1}) + ${k}) % ${P}`;
  return `((${x2}) * (${x2}) + 1) % ${P}`;
}

/** Per-row columns of the series: i, at (ms), hr (hours since START), storm (1/0), m1…m4 (hashes), mc (hash of the storm chain). */
function seriesColumns(i, rows) {
  const at = `(${START} + (${i}) * ${DATA_DAYS * DAY} / ${rows})`;
  const hr = `((${at} - ${START}) / ${ISSUE_HOUR_MS})`;
  const storm = `CASE WHEN ${hr} % 6 = 0 AND (${at} - ${START}) % ${ISSUE_HOUR_MS} < 900000 AND ${mix(i, 5)} % 2 = 0 THEN 1 ELSE 0 END`;
  return [
    ['i', i],
    ['at', at],
    ['hr', hr],
    ['storm', storm],
    ['m1', mix(i, 1)],
    ['m2', mix(i, 2)],
    ['m3', mix(i, 3)],
    ['m4', mix(i, 4)],
    ['mc', mix(`(${i}) / 10`, 6)],
  ];
}

/** The INSERT of rows [lo, hi) of `rows` in `dialect`'s SQL. */
function insertSql(dialect, lo, hi, rows, stormBase) {
  const { hex, hundredths } = DIALECT[dialect];
  const d = (k) => `((s.m3 * ${16807 + 2 * k} + ${k * 104729}) % ${P})`; // hex material of the row
  const e = (k) => `((s.mc * ${16807 + 2 * k} + ${k * 104729}) % ${P})`; // of its storm chain
  const hexN = (f, from, n) => `substr(${Array.from({ length: Math.ceil(n / 8) }, (_, j) => hex(f(from + j), 8)).join(' || ')}, 1, ${n})`;
  const attempt = `CASE WHEN s.storm = 1 THEN 1 + s.i % 10 / 2 WHEN s.m2 % 100 < 92 THEN 1 ELSE 2 + s.m2 / 100 % 3 END`;
  const select = `SELECT
      'err_' || ${hex('s.at', 12)} || '7' || ${hexN(d, 1, 19)},
      s.at,
      CASE WHEN s.storm = 1 AND s.m2 % 10 < 3 THEN ${hexN(e, 1, 32)} ELSE ${hexN(d, 4, 32)} END,
      ${hexN(d, 8, 16)},
      CASE WHEN c.protocol = 'dmc12' THEN 'trc_' || ${hexN(d, 10, 24)} END,
      c.service, c.protocol, c.protocol_version, c.rpc_method, c.skill, c.code, c.legacy_error, c.jsonrpc_code, c.http_status, c.retryable,
      CASE WHEN s.storm = 1 THEN (CASE WHEN c.retryable = 1 THEN 30000 END) WHEN c.code = 'RATE_LIMITED' THEN 1000 * (1 + s.m2 % 30) END,
      CASE WHEN s.storm = 1 THEN sc.name ELSE cl.name END,
      CASE WHEN s.storm = 1 THEN 'g' || ${hexN(e, 5, 21)} ELSE 'f' || ${hexN(d, 13, 21)} END,
      CASE WHEN c.idem = 1 THEN 'i' || ${hexN(d, 16, 21)} END,
      CASE WHEN c.subj = 1 THEN 's' || ${hexN(d, 19, 21)} END,
      ${attempt},
      CASE WHEN (${attempt}) = 1 THEN '[]'
           WHEN s.storm = 1 THEN (CASE WHEN c.retryable = 0 THEN '["retried_non_retryable","no_backoff"]' ELSE '["ignored_retry_after","no_backoff"]' END)
           WHEN s.m2 / 1000 % 50 = 0 THEN (CASE WHEN c.retryable = 1 THEN '["no_backoff"]' ELSE '["retried_non_retryable"]' END)
           ELSE '[]' END,
      c.violations, '[]', ${hundredths('s.m2 / 300 % 4001')}, 'k1', c.issue_key
    FROM ${dialect === 'sqlite' ? 's' : `(SELECT ${seriesColumns('g.i', rows).map(([n, x]) => `${x} AS ${n}`).join(', ')} FROM generate_series(${lo}::bigint, ${hi - 1}) AS g(i) OFFSET 0) s`}
    JOIN bench_bucket bb ON bb.b = s.m1 % ${COMBO_BUCKETS}
    JOIN bench_client cl ON cl.b = s.m4 % ${CLIENT_BUCKETS}
    JOIN bench_client_ix sc ON sc.ix = s.hr * 7 % ${CLIENTS}
    JOIN bench_combo c ON c.id = CASE WHEN s.storm = 1 THEN ${stormBase} + 2 * (s.hr / 6 % ${DEALERS.length}) + (CASE WHEN s.hr % 12 = 0 THEN 1 ELSE 0 END) ELSE bb.combo END`;
  const cols = 'error_id, occurred_at, trace_id, span_id, upstream_trace_id, service, protocol, protocol_version, rpc_method, skill, code, legacy_error, jsonrpc_code, http_status, retryable, retry_after_ms, client, fingerprint, idempotency, subject, attempt, retry_flags, violations, conformance, duration_ms, key_id, issue_key';
  if (dialect === 'postgres') return `INSERT INTO error_events (${cols}) ${select}`;
  const cte = seriesColumns('i', rows);
  const next = seriesColumns('i + 1', rows);
  return `WITH RECURSIVE s(${cte.map(([n]) => n).join(', ')}) AS (
      SELECT ${seriesColumns(String(lo), rows).map(([, x]) => x).join(', ')}
      UNION ALL SELECT ${next.map(([, x]) => x).join(', ')} FROM s WHERE i + 1 < ${hi})
    INSERT INTO error_events (${cols}) ${select}`;
}

/** `traffic` from the rows of [?, ?) (epoch ms): per minute × service × skill × client, errors ~4 % of a healthy client's calls; a storm's calls nearly all fail. */
const TRAFFIC_SQL = `INSERT INTO traffic (minute, service, skill, client, requests, errors, retries)
  SELECT minute, service, skill, client, CASE WHEN stormy = 1 THEN errors + 2 ELSE errors * 25 END, errors,
         CASE WHEN stormy = 1 THEN retries ELSE retries + errors * 50 / 100 END
    FROM (SELECT occurred_at - occurred_at % 60000 AS minute, service, COALESCE(skill, '') AS skill, client, count(*) AS errors,
                 sum(CASE WHEN attempt > 1 THEN 1 ELSE 0 END) AS retries, max(CASE WHEN fingerprint LIKE 'g%' THEN 1 ELSE 0 END) AS stormy
            FROM error_events WHERE occurred_at >= ? AND occurred_at < ? GROUP BY 1, 2, 3, 4) t`;

/** The look-up tables, as (table, columns, rows) for either store's TEMP tables. */
function lookups() {
  const { list, stormBase } = combos();
  const comboCols = ['id', 'service', 'protocol', 'protocol_version', 'rpc_method', 'skill', 'code', 'legacy_error', 'jsonrpc_code', 'http_status', 'retryable', 'violations', 'issue_key', 'idem', 'subj'];
  const skew = (b) => Math.floor(CLIENTS * (b / CLIENT_BUCKETS) ** 3);
  return {
    stormBase,
    issues: new Set(list.map((c) => c.issue_key)).size,
    tables: [
      ['bench_combo', comboCols, list.map((c) => comboCols.map((k) => c[k]))],
      ['bench_bucket', ['b', 'combo'], comboBuckets(list).map((id, b) => [b, id])],
      ['bench_client', ['b', 'name'], Array.from({ length: CLIENT_BUCKETS }, (_, b) => [b, clientName(skew(b))])],
      ['bench_client_ix', ['ix', 'name'], Array.from({ length: CLIENTS }, (_, ix) => [ix, clientName(ix)])],
    ],
  };
}

const TYPES = { b: 'BIGINT', ix: 'BIGINT', id: 'BIGINT', combo: 'BIGINT', jsonrpc_code: 'INTEGER', http_status: 'INTEGER', retryable: 'INTEGER', idem: 'INTEGER', subj: 'INTEGER' };
const createLookup = (table, cols, pk) => `CREATE TEMP TABLE ${table} (${cols.map((c) => `${c} ${TYPES[c] ?? 'TEXT'}`).join(', ')}, PRIMARY KEY (${pk}))`;

/** The UTC day starts (epoch ms) of the data set. */
export const dataDays = () => Array.from({ length: DATA_DAYS + 1 }, (_, k) => START + k * DAY);

/**
 * Builds the SQLite store at `path` (a new file). `log(line)` reports progress. Returns
 * { seconds, steps: { label: seconds } }. Synchronous (better-sqlite3).
 */
export function buildSqlite(path, rows, log = () => undefined) {
  const t = performance.now();
  const steps = {};
  const step = (label, t0) => (steps[label] = (performance.now() - t0) / 1000);
  const db = new Database(path);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000');
  db.pragma('temp_store = FILE');
  migrate(db);
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('error_events', 'traffic')").all();
  for (const ix of indexes) db.exec(`DROP INDEX ${ix.name}`);
  const { tables, stormBase } = lookups();
  for (const [table, cols, data] of tables) {
    db.exec(createLookup(table, cols, cols[0]));
    const ins = db.prepare(`INSERT INTO ${table} VALUES (${cols.map(() => '?').join(', ')})`);
    db.transaction(() => data.forEach((r) => ins.run(...r)))();
  }
  let t0 = performance.now();
  for (let lo = 0; lo < rows; lo += CHUNK) {
    db.prepare(insertSql('sqlite', lo, Math.min(rows, lo + CHUNK), rows, stormBase)).run();
    log(`sqlite: ${(Math.min(rows, lo + CHUNK) / 1e6).toFixed(1)} M rows, ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  step('rows', t0);
  t0 = performance.now();
  db.prepare(TRAFFIC_SQL).run(START, BENCH_END + DAY);
  step('traffic', t0);
  t0 = performance.now();
  for (const ix of indexes) db.exec(ix.sql);
  step(`${indexes.length} indexes`, t0);
  t0 = performance.now();
  rebuildIssueHours(db);
  step('issue summary', t0);
  db.close();
  return { seconds: (performance.now() - t) / 1000, steps };
}

/**
 * Builds the PostgreSQL store in the empty database behind `client` (connected). Same steps
 * as {@link buildSqlite}; the secondary indexes are rebuilt from their own definitions, then
 * VACUUM ANALYZE. Returns { seconds, steps }.
 */
export async function buildPg(client, rows, log = () => undefined) {
  const t = performance.now();
  const steps = {};
  const step = (label, t0) => (steps[label] = (performance.now() - t0) / 1000);
  await migratePg(client, PG_MIGRATIONS);
  await ensurePartitions(client, dataDays(), new Set());
  await client.query("SET maintenance_work_mem = '1GB'");
  await client.query("SET work_mem = '256MB'");
  await client.query('SET synchronous_commit = off');
  // In creation order: the partitions' index names (…_idx, …_idx1) follow it.
  const secondary = (
    await client.query(
      `SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS def FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indrelid IN ('error_events'::regclass, 'traffic'::regclass) AND NOT x.indisprimary ORDER BY x.indexrelid`,
    )
  ).rows;
  for (const ix of secondary) await client.query(`DROP INDEX ${ix.name}`);
  const { tables, stormBase } = lookups();
  for (const [table, cols, data] of tables) {
    await client.query(createLookup(table, cols, cols[0]));
    await client.query(
      `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1)`,
      [JSON.stringify(data.map((r) => Object.fromEntries(cols.map((c, k) => [c, r[k]]))))],
    );
    await client.query(`ANALYZE ${table}`);
  }
  let t0 = performance.now();
  for (let lo = 0; lo < rows; lo += CHUNK) {
    await client.query(insertSql('postgres', lo, Math.min(rows, lo + CHUNK), rows, stormBase));
    log(`postgres: ${(Math.min(rows, lo + CHUNK) / 1e6).toFixed(1)} M rows, ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  step('rows', t0);
  t0 = performance.now();
  // A day at a time: each GROUP BY reads one partition and fits in work_mem.
  for (const day of dataDays()) await client.query(TRAFFIC_SQL.replace('?', '$1').replace('?', '$2'), [day, day + DAY]);
  step('traffic', t0);
  t0 = performance.now();
  // pg_get_indexdef gives a partitioned index as `ON ONLY error_events` (the parent alone):
  // without ONLY it is built on every partition, as the migration's CREATE INDEX did.
  for (const ix of secondary) await client.query(ix.def.replace(' ON ONLY ', ' ON '));
  step(`${secondary.length} indexes`, t0);
  t0 = performance.now();
  await rebuildPgIssueHours(client);
  step('issue summary', t0);
  for (const [table] of tables) await client.query(`DROP TABLE ${table}`);
  t0 = performance.now();
  await client.query('VACUUM (ANALYZE)');
  step('VACUUM ANALYZE', t0);
  return { seconds: (performance.now() - t) / 1000, steps };
}

/** Number of distinct issue keys the combinations make (for the bench's header). */
export const issueCount = () => lookups().issues;

if (process.argv[2] === 'sqlite') {
  // Child process of the bench: build, then one JSON line on stdout; progress on stderr.
  const [, , , path, rowsArg] = process.argv;
  const res = buildSqlite(path, Number(rowsArg), (line) => process.stderr.write(`  ${line}\n`));
  process.stdout.write(`${JSON.stringify(res)}\n`);
}
