// Several writers opening one new store file at the same moment (the demo's and a dashboard
// test's two services, or a fleet of processes started together): every one opens, none falls
// back to running without an audit log, and every row lands.
import { afterEach, describe, expect, it } from 'vitest';
import { openAuditSink } from '../../src/audit/index.js';
import { captureLogger, count, makeEvent, tempDir } from './helpers.js';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

describe('writers opening one new file at once', () => {
  it('all open and write, in each of 5 rounds of 8 writers', async () => {
    for (let round = 0; round < 5; round++) {
      const t = tempDir();
      cleanups.push(t.cleanup);
      const loggers = Array.from({ length: 8 }, () => captureLogger());
      const sinks = loggers.map((logger, i) => openAuditSink({ path: t.db, service: `svc-${i}`, logger, handleSignals: false }));
      sinks.forEach((sink, i) => sink.write(makeEvent(round * 10 + i)));
      await Promise.all(sinks.map((s) => s.close()));
      for (const sink of sinks) expect(sink.health()).toMatchObject({ state: 'ok', written: 1, failed: 0, dropped: 0 });
      for (const logger of loggers) expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
      expect(count(t.db, 'error_events')).toBe(8);
    }
  }, 60_000);
});
