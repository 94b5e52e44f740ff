/**
 * One log event per error, and storm sampling of the human-readable line (DESIGN §2; issue 26
 * decision 1): per code and second, the first N lines pass; one summary line per second says
 * exactly how many were left out; the audit rows stay one per error.
 */
import { describe, expect, it } from 'vitest';
import { LineSampler } from '../../src/instrument/sinks/line-sampler.js';
import type { OmittedLines } from '../../src/instrument/sinks/line-sampler.js';
import { SAMPLED_LOG_MESSAGE } from '../../src/instrument/sinks/log.js';
import { post } from '../helpers/aap-server.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import { waitFor } from '../helpers/otel.js';
import { createHarness } from './harness.js';

describe('LineSampler', () => {
  it('passes the first N lines of a code in a second and summarises the rest exactly, once the second is over', () => {
    const summaries: OmittedLines[] = [];
    const s = new LineSampler(10, (o) => summaries.push(o));
    const second = 1_764_633_600; // a whole second, epoch s
    let admitted = 0;
    for (let i = 0; i < 10_000; i++) if (s.admit('RATE_LIMITED', second * 1000 + (i % 1000))) admitted++;
    for (let i = 0; i < 5; i++) if (s.admit('INTERNAL_ERROR', second * 1000 + 999)) admitted++;
    expect(admitted).toBe(15);
    expect(summaries).toEqual([]);
    // The next second of the same code: its own N, and the last second's summary first.
    expect(s.admit('RATE_LIMITED', (second + 1) * 1000)).toBe(true);
    expect(summaries).toEqual([{ code: 'RATE_LIMITED', omitted: 9_990, second }]);
    s.flush();
    expect(summaries).toHaveLength(1);
  });

  it('summarises a storm that stops without another error, from its timer', async () => {
    const summaries: OmittedLines[] = [];
    const s = new LineSampler(1, (o) => summaries.push(o));
    const now = Date.now();
    for (let i = 0; i < 4; i++) s.admit('UPSTREAM_UNAVAILABLE', now);
    await waitFor(() => summaries.length === 1, 3_000);
    expect(summaries[0]).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', omitted: 3, second: Math.floor(now / 1000) });
  });
});

describe('the per-error line in a storm', () => {
  it('writes at most N lines per code and second, one summary with the exact count, and every audit row', async () => {
    const N = 3;
    const h = createHarness({ logLinesPerSecond: N });
    const srv = await startDmc12Server(h.triage);
    try {
      const calls = 40;
      for (let i = 0; i < calls; i++) await post(srv.url, toolsCall(`storm-${i}`, 'create_reservation', { fail: 'RESERVATION_CONFLICT', omitErrorId: true }), DMC12_HEADERS);
      await h.triage.shutdown();
      expect(h.sink.events.filter((e) => e.code === 'RESERVATION_CONFLICT')).toHaveLength(calls);
      const errorLines = h.log.lines().filter((l) => l.msg === 'json-rpc error sent');
      const summaries = h.log.lines().filter((l) => l.msg === SAMPLED_LOG_MESSAGE);
      const perSecond = new Map<number, number>();
      for (const l of errorLines) {
        const e = h.sink.events.find((x) => x.error_id === l.error_id);
        const second = Math.floor((e?.occurred_at ?? 0) / 1000);
        perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
      }
      for (const n of perSecond.values()) expect(n).toBeLessThanOrEqual(N);
      expect(errorLines.length + summaries.reduce((sum, l) => sum + Number(l.omitted), 0)).toBe(calls);
      for (const l of summaries) expect(l).toMatchObject({ service: 'dealer-test', code: 'RESERVATION_CONFLICT', lines_per_second: N });
    } finally {
      await srv.close();
    }
  });
});
