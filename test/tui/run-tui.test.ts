import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_INTERACTIVE_MESSAGE, runTui } from '../../src/tui/index.js';
import { createTestStore } from '../helpers/stores.js';
import { seedTuiDb } from './helpers/seed.js';

/** A TTY-like output stream that keeps what ink writes. */
class TtyOut extends EventEmitter {
  isTTY = true;
  columns = 100;
  rows = 30;
  text = '';
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

/** A TTY-like input stream in raw mode. */
class TtyIn extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  type(s: string) {
    this.data = s;
    this.emit('readable');
  }
  read() {
    const d = this.data;
    this.data = null;
    return d;
  }
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

const sink = () => {
  const s = { text: '', write: (c: string) => ((s.text += c), true) };
  return s;
};

let dir: string;
let db: string;
beforeAll(() => {
  // ink decides once, when it is first loaded (lazily, by runTui), whether it runs in CI; in CI it
  // writes only the last frame. runTui itself is given its own env below, so drop CI for ink.
  delete process.env.CI;
  dir = mkdtempSync(join(tmpdir(), 'aap-tui-run-'));
  db = join(dir, 'audit.db');
  seedTuiDb(db, Date.now());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runTui', () => {
  it('draws the Issues view (the one it opens on) through ink and resolves to 0 after q', async () => {
    const out = new TtyOut();
    const input = new TtyIn();
    const done = runTui({ dbPath: db, stdin: input as never, stdout: out as never, stderr: sink(), env: {}, refreshMs: 0 });
    for (let t = 0; t < 20_000 && !/issues 1–4 of 4/.test(out.text); t += 20) await new Promise((r) => setTimeout(r, 20));
    expect(out.text).toMatch(/\[issues\]/);
    expect(out.text).toMatch(/issues 1–4 of 4/);
    // No alternate screen and no clear-scrollback escape, ever.
    expect(out.text).not.toContain('\u001b[?1049h');
    expect(out.text).not.toContain('\u001b[3J');
    input.type('q');
    await expect(done).resolves.toBe(0);
  });

  it('draws the same Issues view from a PostgreSQL store, with no password on screen', async () => {
    const store = await createTestStore('postgres');
    try {
      await store.copyFrom(db);
      const u = new URL(store.target);
      u.password = 'tui-s3cret';
      const out = new TtyOut();
      const input = new TtyIn();
      const done = runTui({ dbPath: u.toString(), stdin: input as never, stdout: out as never, stderr: sink(), env: {}, refreshMs: 0 });
      for (let t = 0; t < 20_000 && !/issues 1–4 of 4/.test(out.text); t += 20) await new Promise((r) => setTimeout(r, 20));
      expect(out.text).toMatch(/issues 1–4 of 4/);
      expect(out.text).not.toContain('tui-s3cret');
      input.type('q');
      await expect(done).resolves.toBe(0);
    } finally {
      await store.cleanup();
    }
  });

  it('refuses a non-terminal with the one line and 2, before opening the database', async () => {
    const err = sink();
    const code = await runTui({ dbPath: join(dir, 'absent.db'), stdin: { isTTY: false } as never, stdout: new TtyOut() as never, stderr: err, env: {} });
    expect(code).toBe(2);
    expect(err.text).toBe(NOT_INTERACTIVE_MESSAGE + '\n');
  });

  it('refuses CI=true in a terminal with the one line and 2', async () => {
    const err = sink();
    const code = await runTui({ dbPath: db, stdin: new TtyIn() as never, stdout: new TtyOut() as never, stderr: err, env: { CI: 'true' } });
    expect(code).toBe(2);
    expect(err.text).toBe(NOT_INTERACTIVE_MESSAGE + '\n');
  });

  it('names a missing database in one line and resolves to 3', async () => {
    const err = sink();
    const code = await runTui({ dbPath: join(dir, 'absent.db'), stdin: new TtyIn() as never, stdout: new TtyOut() as never, stderr: err, env: {} });
    expect(code).toBe(3);
    expect(err.text).toMatch(/^aap-triage: no audit database at .*absent\.db.*\n$/);
    expect(err.text.split('\n')).toHaveLength(2);
  });

  it('refuses a directory given as the database in one line and resolves to 3', async () => {
    const err = sink();
    const code = await runTui({ dbPath: dir, stdin: new TtyIn() as never, stdout: new TtyOut() as never, stderr: err, env: {} });
    expect(code).toBe(3);
    expect(err.text).toBe(`aap-triage: ${dir} is a directory, not an audit database — pass the .db file\n`);
  });

  it('rejects a bad --since with one line and 2', async () => {
    const err = sink();
    const code = await runTui({ dbPath: db, since: 'yesterday', stdin: new TtyIn() as never, stdout: new TtyOut() as never, stderr: err, env: {} });
    expect(code).toBe(2);
    expect(err.text).toContain("bad --since 'yesterday'");
  });
});
