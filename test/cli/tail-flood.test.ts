// `aap-triage tail` never skips (issue 16): the real launcher follows a database that a real
// writer process fills at 3,000 rows/s (far more than one 1,000-row page per 1 s poll); every
// row the writer stored is printed exactly once. Builds dist/ first when it is missing or stale.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditSink } from '../../src/audit/index.js';
import { captureLogger, makeEvent, rawDb, tempDir } from '../audit/helpers.js';

const root = join(import.meta.dirname, '..', '..');
const WRITER = join(root, 'test', 'audit', 'fixtures', 'writer-child.mjs');
const t = tempDir('aap-tail-flood-');

beforeAll(() => {
  const built = join(root, 'dist', 'cli', 'commands', 'tail.js');
  const newest = Math.max(...['src/cli/commands/tail.ts', 'src/triage/search.ts'].map((f) => statSync(join(root, f)).mtimeMs));
  if (!existsSync(built) || statSync(built).mtimeMs < newest) {
    try {
      execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'ignore', timeout: 120_000 });
    } catch {
      // tsc exits non-zero on type errors elsewhere in the tree but still emits dist/
    }
  }
}, 150_000);
afterAll(() => t.cleanup());

const waitUntil = async (cond: () => boolean, ms: number): Promise<void> => {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
};

describe('tail under a 3,000 rows/s writer', () => {
  it('prints every stored row exactly once, however many land between two polls', async () => {
    // A sentinel row, printed by `--lines 1`: once it is out, tail has marked what was there.
    const sink = openAuditSink({ path: t.db, logger: captureLogger(), handleSignals: false });
    const sentinel = makeEvent(1, { occurred_at: Date.now(), error_id: 'err_ffff0000000000000000000000000001' });
    sink.write(sentinel);
    await sink.close();

    const tail = spawn(process.execPath, [join(root, 'bin', 'aap-triage.js'), 'tail', '--json', '--lines', '1', '--interval', '1000', '--db', t.db], {
      env: { PATH: process.env['PATH'] ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    tail.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    tail.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    await waitUntil(() => out.includes(sentinel.error_id), 15_000);
    expect(out).toContain(sentinel.error_id);

    // 12,000 rows over 4 s: about 3,000 per poll.
    const writer = spawn(process.execPath, [WRITER, 'steady', t.db, '7', '12000', '4000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let wout = '';
    writer.stdout.on('data', (c: Buffer) => (wout += c.toString('utf8')));
    const writerExit = await new Promise<number | null>((resolve) => writer.on('exit', (code) => resolve(code)));
    expect(writerExit).toBe(0);
    expect(JSON.parse(wout)).toMatchObject({ sent: 12_000, health: { written: 12_000, dropped: 0, failed: 0 } });

    // Complete lines only: the last one may still be arriving.
    const printedIds = (): string[] =>
      out
        .slice(0, out.lastIndexOf('\n') + 1)
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { error_id: string }).error_id);
    await waitUntil(() => printedIds().length >= 12_001, 20_000);
    const exited = new Promise<number | null>((resolve) => tail.on('exit', (code) => resolve(code)));
    tail.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(err).toBe('');

    const db = rawDb(t.db);
    const stored = (db.prepare('SELECT error_id FROM error_events').all() as { error_id: string }[]).map((r) => r.error_id);
    db.close();
    const printed = printedIds();
    expect(stored).toHaveLength(12_001);
    expect(printed).toHaveLength(12_001);
    expect(new Set(printed)).toEqual(new Set(stored));
  }, 60_000);
});
