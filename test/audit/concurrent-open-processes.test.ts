// Issue 27: writer processes opening one new store file at the same moment. Each of 8 processes
// runs two writers (the demo's two services in one process), so in every round a writer opens
// the file while its sibling already holds SQLite's locks on it: the case that used to drop the
// process's POSIX locks (docs/audit-store.md, "Several writers opening one new file"). CI runs
// AAP_TRIAGE_OPEN_ROUNDS rounds (default 5); the 50:
//   AAP_TRIAGE_OPEN_ROUNDS=50 npx vitest run test/audit/concurrent-open-processes.test.ts
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { rawDb, tempDir } from './helpers.js';
import { FIXTURES, requireDist } from './processes.js';

const ROUNDS = Number(process.env['AAP_TRIAGE_OPEN_ROUNDS'] ?? 5);
const PROCESSES = 8;
const WRITERS = 2;
const ROWS = 5;
/** SQLite's SHARED lock: a read lock on the 510 bytes at 1 GiB + 2 (os_unix.c, SHARED_FIRST). */
const SHARED_FIRST = 1_073_741_826;

interface Closed {
  round: number;
  health: Array<{ state: string; written: number; dropped: number; failed: number }>;
  errors: string[];
}

/** Pids holding a POSIX read lock on SQLite's SHARED range of the file with inode `ino` (Linux /proc/locks). */
function sharedLockHolders(ino: number): Set<number> {
  const holders = new Set<number>();
  for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
    // "1: POSIX  ADVISORY  READ 13463 fe:00:2154713 1073741826 1073742335"; waiters have "->".
    const f = line.trim().split(/\s+/);
    if (f[1] !== 'POSIX' || f[3] !== 'READ') continue;
    if (Number(f[5]?.split(':').pop()) === ino && Number(f[6]) === SHARED_FIRST) holders.add(Number(f[4]));
  }
  return holders;
}

let children: ChildProcess[] = [];
let cleanup: (() => void) | undefined;
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
  cleanup?.();
});

describe('writer processes opening one new file at once', () => {
  it(
    `${PROCESSES} processes × ${WRITERS} writers, ${ROUNDS} rounds: every writer opens, keeps its process's locks, writes its rows and ends ok`,
    async () => {
      requireDist();
      const t = tempDir();
      cleanup = t.cleanup;
      children = Array.from({ length: PROCESSES }, (_, p) =>
        spawn(process.execPath, [`${FIXTURES}open-rounds-child.mjs`, String(p), String(WRITERS), String(ROWS)], { stdio: ['pipe', 'pipe', 'pipe'] }),
      );
      const stderr = children.map(() => '');
      children.forEach((child, p) => child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr[p] += d)));
      const exited = children.map((child) => new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code))));
      // Each child answers every command with one line. All children have their modules loaded
      // and wait on stdin, so a round's `open` reaches them at the same moment.
      const lines = children.map((child) => createInterface({ input: child.stdout! })[Symbol.asyncIterator]());
      const ask = (command: string) => {
        for (const child of children) child.stdin!.write(`${command}\n`);
        return Promise.all(
          lines.map(async (it, p) => {
            const next = await it.next();
            if (next.done) throw new Error(`writer process ${p} ended early: ${stderr[p]}`);
            return JSON.parse(next.value as string) as unknown;
          }),
        );
      };
      const checkLocks = existsSync('/proc/locks');
      for (let round = 0; round < ROUNDS; round++) {
        const db = `${t.dir}/round-${round}.db`;
        expect(await ask(`open ${db} ${round}`)).toEqual(children.map(() => ({ round, opened: WRITERS })));
        // While its writers are open (WAL), each process holds SHARED on the file, so no other
        // process can take the exclusive lock (to delete the WAL as its last user, or convert).
        if (checkLocks) expect(sharedLockHolders(statSync(db).ino)).toEqual(new Set(children.map((c) => c.pid)));
        const reports = (await ask('close')) as Closed[];
        for (const report of reports) {
          expect(report.round).toBe(round);
          expect(report.errors).toEqual([]);
          for (const health of report.health) expect(health).toMatchObject({ state: 'ok', written: ROWS, dropped: 0, failed: 0 });
        }
        const store = rawDb(db);
        const perService = store.prepare('SELECT service, count(*) AS n FROM error_events GROUP BY service').all() as Array<{ service: string; n: number }>;
        expect(perService.length).toBe(PROCESSES * WRITERS);
        for (const row of perService) expect(row.n).toBe(ROWS);
        expect(store.pragma('integrity_check', { simple: true })).toBe('ok');
        store.close();
      }
      for (const child of children) child.stdin!.end();
      expect(await Promise.all(exited)).toEqual(children.map(() => 0));
      expect(stderr.join('')).toBe('');
    },
    60_000 + ROUNDS * 30_000,
  );
});
