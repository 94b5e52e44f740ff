/**
 * Hostile traffic (issue 16 "Tests"): both instrumented demo dealer agents in a child process
 * (test/demo/fixtures/hostile-dealers.mjs, against dist/), sent a bounded mix of every kind of
 * request the issue names — odd tool names, a stack-trace-looking argument, emails as id and
 * method, batches, a body over the dealer's limit, truncated JSON, invalid UTF-8, deep nesting,
 * `__proto__` keys, notifications, wrong content types, empty bodies, GETs and unknown paths,
 * auth failures — plus ordinary calls, on loopback. Then: the host never crashed (every request
 * answered, clean exit), no reply is HTML or carries a stack trace, the audit rows (plus any
 * gap records) equal the errors the callers saw, and RSS growth stays bounded.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditReader } from '../../src/audit/index.js';
import { AAP_EXTENSION_URI } from '../../src/demo/constants.js';

const root = join(import.meta.dirname, '..', '..');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'hostile-dealers.mjs');
/** Rounds over the request kinds: rounds × kinds ≥ 1,000 requests. */
const ROUNDS = 30;
/** RSS growth allowed between the warm-up round and the end, bytes. */
const RSS_BOUND = 64 * 1024 * 1024;

type Obj = Record<string, unknown>;
interface Req {
  kind: string;
  dealer: 'aap' | 'dmc12';
  method?: string;
  path?: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}
interface Seen {
  kind: string;
  dealer: 'aap' | 'dmc12';
  status: number;
  contentType: string;
  text: string;
  errors: number;
}

let dir = '';
let child: ChildProcess;
let stderr = '';
let urls: { aap: string; dmc12: string; token: string };
let exitCode: number | null = null;
const seen: Seen[] = [];
const rss: number[] = [];
let rows: { service: string; n: number }[] = [];
let gapTotals: { service: string; n: number }[] = [];

const ask = (msg: string): Promise<Obj> =>
  new Promise((resolve) => {
    const on = (m: Obj): void => {
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
    child.send(msg);
  });

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Errors a caller sees in one reply: JSON-RPC error members, DMC-12 result errors, failed tasks; a non-JSON HTTP error is one. */
function errorsIn(status: number, text: string): number {
  let value: unknown;
  try {
    value = text === '' ? undefined : JSON.parse(text);
  } catch {
    return status >= 400 ? 1 : 0;
  }
  if (value === undefined) return status >= 400 ? 1 : 0;
  const items = Array.isArray(value) ? value : [value];
  let n = 0;
  for (const item of items) {
    if (!isObj(item)) continue;
    if (Object.hasOwn(item, 'error')) n++;
    else if (isObj(item.result)) {
      const data = item.result.data;
      const task = isObj(item.result.task) ? item.result.task : null;
      const state = isObj(task?.status) ? (task.status as Obj).state : undefined;
      if (isObj(data) && (typeof data.error_code === 'string' || typeof data.error === 'string')) n++;
      else if (state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_REJECTED') n++;
    }
  }
  return n;
}

function requests(token: string, round: number): Req[] {
  const dmcHeaders = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const aapHeaders = { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': AAP_EXTENSION_URI, authorization: `Bearer hostile-aap-${round % 5}` };
  const email = `hostile.${round}@example.com`;
  const tool = (id: unknown, name: unknown, args: unknown = {}): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const msg = (id: unknown, data: Obj, method = 'SendMessage'): string =>
    JSON.stringify({ jsonrpc: '2.0', id, method, params: { message: { messageId: `m-${round}-${String(id)}`, role: 'ROLE_USER', parts: [{ data, mediaType: 'application/json' }] } } });
  const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
  const stackArg = `Error: boom\n    at Object.<anonymous> (/srv/dealer/app.js:12:7)\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)`;
  const invalidUtf8 = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_inventory","arguments":{"make":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}}')]);
  const dmc = (kind: string, body: string | Buffer | undefined, over: Partial<Req> = {}): Req => ({ kind, dealer: 'dmc12', headers: dmcHeaders, ...(body === undefined ? {} : { body }), ...over });
  const aap = (kind: string, body: string | Buffer | undefined, over: Partial<Req> = {}): Req => ({ kind, dealer: 'aap', path: '/a2a', headers: aapHeaders, ...(body === undefined ? {} : { body }), ...over });
  return [
    dmc('dmc ok search', tool(round, 'search_inventory', { make: 'Honda' })),
    dmc('dmc tool name with a space', tool(round, 'search inventory')),
    dmc('dmc tool name missing', JSON.stringify({ jsonrpc: '2.0', id: round, method: 'tools/call', params: { arguments: {} } })),
    dmc('dmc tool name is an email', tool(round, email)),
    dmc('dmc stack-trace argument echoed', tool(round, 'get_vehicle', { vin: stackArg })),
    dmc('dmc email as id', tool(email, 'get_vehicle', { vin: '1HGCM82633A00NOPE' })),
    dmc('dmc email as method', JSON.stringify({ jsonrpc: '2.0', id: round, method: email, params: {} })),
    dmc('dmc batch of 300', `[${Array.from({ length: 300 }, (_, i) => tool(i, 'create_reservation', { quote_id: 'q_x' })).join(',')}]`),
    dmc('dmc body over the limit', tool(round, 'search_inventory', { pad: 'x'.repeat(300 * 1024) })),
    dmc('dmc truncated JSON', tool(round, 'search_inventory').slice(0, 40)),
    dmc('dmc invalid UTF-8', invalidUtf8),
    dmc('dmc deep nesting', deep(5000)),
    dmc('dmc __proto__ keys', '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"__proto__":{"polluted":1},"name":"search_inventory","arguments":{"__proto__":{"make":"x"},"constructor":{"prototype":{"p":1}}}}}'),
    dmc('dmc notification', JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'search_inventory', arguments: {} } })),
    dmc('dmc no token', tool(round, 'search_inventory'), { headers: { 'content-type': 'application/json' } }),
    dmc('dmc text/plain', tool(round, 'search_inventory'), { headers: { ...dmcHeaders, 'content-type': 'text/plain' } }),
    dmc('dmc empty body', ''),
    dmc('dmc GET', undefined, { method: 'GET' }),
    dmc('dmc unknown path', tool(round, 'search_inventory'), { path: '/nope' }),
    dmc('dmc wrong jsonrpc version', JSON.stringify({ jsonrpc: '1.0', id: round, method: 'tools/call', params: { name: 'search_inventory' } })),
    aap('aap ok search', msg(round, { type: 'inventory.search.request', filters: { make: 'Honda' } })),
    aap('aap unknown skill', msg(round, { type: 'canary.unknown.request' })),
    aap('aap schema invalid', msg(round, { type: 'inventory.search.request', filters: { [email]: 1 } })),
    aap('aap unknown VIN', msg(round, { type: 'inventory.vehicle.request', vin: '1HGCM82633A00NOPE' })),
    aap('aap email as id', msg(email, { type: 'inventory.vehicle.request', vin: '1HGCM82633A00NOPE' })),
    aap('aap email as method', JSON.stringify({ jsonrpc: '2.0', id: round, method: email, params: {} })),
    aap('aap no A2A-Version', msg(round, { type: 'inventory.search.request' }), { headers: { 'content-type': 'application/json', 'A2A-Extensions': AAP_EXTENSION_URI } }),
    aap('aap no extension', msg(round, { type: 'inventory.search.request' }), { headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' } }),
    aap('aap batch', `[${msg(1, { type: 'inventory.search.request' })},${msg(2, { type: 'dealer.information.request' })}]`),
    aap('aap body over the limit', msg(round, { type: 'inventory.search.request', pad: 'x'.repeat(200 * 1024) })),
    aap('aap truncated JSON', msg(round, { type: 'inventory.search.request' }).slice(0, 50)),
    aap('aap invalid UTF-8', Buffer.concat([Buffer.from(msg(round, { type: 'inventory.search.request', note: 'Z' })).subarray(0, 60), Buffer.from([0xff, 0xfe]), Buffer.from('"}}]}}')])),
    aap('aap deep nesting', deep(5000)),
    aap('aap __proto__ keys', msg(round, { type: 'inventory.search.request', __proto__: { polluted: true }, filters: { constructor: { prototype: { x: 1 } } } } as Obj)),
    aap('aap stack-trace text', msg(round, { type: 'inventory.vehicle.request', vin: stackArg })),
    aap('aap text/plain', msg(round, { type: 'inventory.search.request' }), { headers: { ...aapHeaders, 'content-type': 'text/plain' } }),
    aap('aap empty body', ''),
    aap('aap GET', undefined, { method: 'GET' }),
    aap('aap unknown path', msg(round, { type: 'inventory.search.request' }), { path: '/nope' }),
    aap('aap agent card', undefined, { method: 'GET', path: '/.well-known/agent-card.json', headers: {} }),
  ];
}

async function send(r: Req): Promise<Seen> {
  const base = r.dealer === 'aap' ? urls.aap : urls.dmc12;
  const url = r.path ? (r.dealer === 'aap' ? `${base}${r.path}` : new URL(r.path, base).toString()) : base;
  const res = await fetch(url, { method: r.method ?? 'POST', headers: r.headers, ...(r.body !== undefined && (r.method ?? 'POST') === 'POST' ? { body: r.body } : {}) });
  const text = await res.text();
  return { kind: r.kind, dealer: r.dealer, status: res.status, contentType: res.headers.get('content-type') ?? '', text, errors: errorsIn(res.status, text) };
}

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'demo', 'dealers.js'))) throw new Error('dist/ is not built: run `npm run build` first (npm test does)');
  dir = mkdtempSync(join(tmpdir(), 'aap-hostile-'));
  const dbPath = join(dir, 'hostile.db');
  child = fork(FIXTURE, [dbPath], { execArgv: ['--expose-gc'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  urls = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(JSON.parse(line) as typeof urls);
    });
    child.once('exit', () => reject(new Error(`fixture exited early: ${stderr}`)));
  });
  for (let round = 0; round < ROUNDS; round++) {
    const batch = requests(urls.token, round);
    // Eight at a time: concurrent, bounded.
    for (let i = 0; i < batch.length; i += 8) seen.push(...(await Promise.all(batch.slice(i, i + 8).map(send))));
    if (round === 0) rss.push((await ask('rss')).rss as number);
  }
  rss.push((await ask('rss')).rss as number);
  child.send('stop');
  exitCode = await exited;
  const db = openAuditReader(dbPath);
  try {
    rows = db.prepare('SELECT service, count(*) AS n FROM error_events GROUP BY service').all() as typeof rows;
    gapTotals = db.prepare('SELECT service, sum(dropped) AS n FROM audit_gaps GROUP BY service').all() as typeof gapTotals;
  } finally {
    db.close();
  }
}, 180_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('hostile traffic against both instrumented demo dealers', () => {
  it('sent at least 1,000 requests of every kind, and each dealer answered them all', () => {
    expect(seen.length).toBeGreaterThanOrEqual(1_000);
    expect(new Set(seen.map((s) => s.kind)).size).toBe(requests('t', 0).length);
    expect(seen.every((s) => s.status > 0)).toBe(true);
  });

  it('never crashed the host: it exited cleanly when asked, with nothing uncaught on stderr', () => {
    expect(exitCode).toBe(0);
    expect(stderr).not.toMatch(/Uncaught|FATAL|unhandled rejection|ERR_/i);
  });

  it('never answered with HTML or a stack trace', () => {
    const html = seen.filter((s) => s.contentType.includes('text/html') || /^\s*</.test(s.text));
    expect(html.map((s) => s.kind)).toEqual([]);
    const traces = seen.filter((s) => /\n\s+at [^\n]*:\d+:\d+/.test(s.text) || /\bat [\w.<>]+ \([^)]*:\d+:\d+\)/.test(s.text));
    expect(traces.map((s) => `${s.kind}: ${s.text.slice(0, 200)}`)).toEqual([]);
    // Every reply with a body is a JSON-RPC envelope (or the agent card).
    const notJson = seen.filter((s) => s.text !== '' && !s.contentType.includes('json'));
    expect(notJson.map((s) => `${s.kind} ${s.status} ${s.contentType}`)).toEqual([]);
  });

  it('stored one row per error the callers saw (gap records included), per dealer', () => {
    for (const [dealer, service] of [
      ['aap', 'hostile-aap'],
      ['dmc12', 'hostile-dmc12'],
    ] as const) {
      const saw = seen.filter((s) => s.dealer === dealer).reduce((n, s) => n + s.errors, 0);
      const stored = (rows.find((r) => r.service === service)?.n ?? 0) + (gapTotals.find((g) => g.service === service)?.n ?? 0);
      expect(saw, dealer).toBeGreaterThan(ROUNDS * 10);
      expect(stored, dealer).toBe(saw);
    }
  });

  it('kept RSS growth bounded between the warm-up round and the end', () => {
    expect(rss).toHaveLength(2);
    expect((rss[1] as number) - (rss[0] as number)).toBeLessThan(RSS_BOUND);
  });
});
