/**
 * End to end with aap-triage on the server: the dealer (real @a2a-js/sdk server, aap-triage's
 * middleware mounted first, skill code throwing protocol's `AapError`) writes a real SQLite audit
 * file; the buyer (real @a2a-js/sdk client through `createAapFetch` + `withRetries`) sends the
 * attempt header. The audit rows must carry that attempt, and the ids the client hands the
 * operator must be the audit rows' ids.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAuditReader } from '../../src/audit/index.js';
import { DealerAgentError, createAapFetch, createRetryBudget, withRetries } from '../../src/client/index.js';
import { createTriage } from '../../src/instrument/index.js';
import { AapError } from '../../src/protocol/index.js';
import { startAapDealer } from './fixtures/aap-dealer.js';
import { createSdkClient, searchMessage } from './fixtures/sdk-client.js';
import { createTestTelemetry } from './fixtures/telemetry.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('attempt header → server retry tracker → audit rows', () => {
  it('stores the attempt of every try, and the client summary quotes the audit rows’ error_id and trace_id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aap-client-audit-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dbPath = join(dir, 'audit.db');
    const serverTelemetry = createTestTelemetry();
    const triage = createTriage({
      serviceName: 'fixture-motors',
      auditDb: dbPath,
      logger: false,
      tracerProvider: serverTelemetry.tracerProvider,
      meterProvider: serverTelemetry.meterProvider,
    });
    const dealer = await startAapDealer({ middleware: triage.middleware() });
    cleanups.push(() => dealer.close());
    for (let i = 0; i < 4; i++) {
      dealer.script.push({ throw: () => new AapError('RATE_LIMITED', 'Per-key rate limit exceeded.', { details: { retry_after_ms: 20 } }) });
    }

    const client = await createSdkClient(dealer.baseUrl, createAapFetch({ logger: false }));
    const err = await withRetries(() => client.sendMessage(searchMessage()), {
      budget: createRetryBudget(),
      sleep: async () => {},
      logger: false,
    }).catch((e: unknown) => e);
    await triage.shutdown();

    expect(err).toBeInstanceOf(DealerAgentError);
    const e = err as DealerAgentError;
    expect(e.stopReason).toBe('max-attempts');
    expect(e.attempts.map((a) => a.code)).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
    expect(dealer.seen.map((s) => s.attempt)).toEqual(['1', '2', '3', '4']);

    const db = openAuditReader(dbPath);
    cleanups.push(() => {
      db.close();
    });
    const rows = db
      .prepare('SELECT error_id, trace_id, attempt, code, retryable, retry_after_ms FROM error_events ORDER BY occurred_at, attempt')
      .all() as { error_id: string; trace_id: string | null; attempt: number; code: string; retryable: number; retry_after_ms: number }[];
    expect(rows.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
    expect(rows.map((r) => [r.code, r.retryable, r.retry_after_ms])).toEqual(Array(4).fill(['RATE_LIMITED', 1, 20]));
    // The retry hint the buyer read is the one the audit holds (both from the same envelope).
    expect(e.attempts.map((a) => a.retryAfterMs)).toEqual(rows.map((r) => r.retry_after_ms));
    // What the buyer quotes in an incident email is what the operator finds in the audit store.
    expect(e.attempts.map((a) => a.errorId)).toEqual(rows.map((r) => r.error_id));
    expect(e.attempts.map((a) => a.traceId)).toEqual(rows.map((r) => r.trace_id));
    expect(rows.every((r) => /^[0-9a-f]{32}$/.test(r.trace_id ?? ''))).toBe(true);
  });
});
