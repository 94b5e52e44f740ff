/**
 * A dealer that reuses an error_id (spec/aap-errors.txt: error_id is a "Unique identifier for
 * this error instance"; spec/dmc12-errors.txt: "error_id ↔ audit row error_id correlates 1:1"):
 * both errors get an audit row in the real SQLite store, and the second is flagged
 * `error-id-reused`. The wire keeps the host's bytes; span and log keep the id the buyer holds.
 */
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { counterSum } from '../helpers/otel.js';
import { DMC12_HEADERS, startDmc12Server, toolsCall } from '../helpers/dmc12-server.js';
import { post } from '../helpers/aap-server.js';
import { tempDir } from '../audit/helpers.js';
import { createHarness } from './harness.js';

const SERVER_ERROR_ID = 'err_5f1c8e2a9b7d4c3e8a1f0b6d2c4e7a90';
const tmp = tempDir('aap-reuse-');
afterAll(() => tmp.cleanup());

describe('a dealer that reuses an error_id', () => {
  it('leaves two audit rows, the second flagged error-id-reused, and the wire untouched', async () => {
    const h = createHarness({ auditSink: undefined, auditDb: tmp.db });
    const srv = await startDmc12Server(h.triage);
    const bare = await startDmc12Server(null);
    // The test dealer answers every failing call with the same error_id.
    const call = (id: string) => toolsCall(id, 'create_reservation', { fail: 'RESERVATION_CONFLICT', vin: '1HGCM82633A000009' });
    const first = await post(srv.url, call('dup-1'), DMC12_HEADERS);
    const second = await post(srv.url, call('dup-2'), DMC12_HEADERS);
    expect(second.text).toBe((await post(bare.url, call('dup-2'), DMC12_HEADERS)).text);
    expect((first.json as { result: { data: { error_id: string } } }).result.data.error_id).toBe(SERVER_ERROR_ID);
    expect((second.json as { result: { data: { error_id: string } } }).result.data.error_id).toBe(SERVER_ERROR_ID);
    await h.span('dup-2');
    const violations = (await h.otel.metrics()).get('aap.conformance.violations');
    expect(counterSum(violations, { 'aap.conformance.rule': 'error-id-reused' })).toBe(1);
    await srv.close();
    await bare.close();
    await h.triage.shutdown();

    const db = new BetterSqlite3(tmp.db, { readonly: true });
    const rows = db.prepare("SELECT error_id, conformance FROM error_events WHERE code = 'RESERVATION_CONFLICT' ORDER BY occurred_at").all() as Array<{ error_id: string; conformance: string }>;
    db.close();
    expect(rows).toHaveLength(2);
    expect(rows[0]?.error_id).toBe(SERVER_ERROR_ID);
    expect(JSON.parse(rows[0]?.conformance ?? '[]')).not.toContain('error-id-reused');
    expect(rows[1]?.error_id).toMatch(/^err_[0-9a-f]{32}$/);
    expect(rows[1]?.error_id).not.toBe(SERVER_ERROR_ID);
    expect(JSON.parse(rows[1]?.conformance ?? '[]')).toContain('error-id-reused');
    // Span and log line keep the id the buyer holds (the trace id leads to the second row).
    const span = await h.span('dup-2');
    expect(span.attributes['aap.error.id']).toBe(SERVER_ERROR_ID);
    expect(span.attributes['aap.conformance.rules']).toEqual(expect.arrayContaining(['error-id-reused']));
    expect(h.log.lines().filter((l) => l.error_id === SERVER_ERROR_ID)).toHaveLength(2);
  });
});
