/**
 * Store-level PII canary (issue #4 "Tests"): events built from canary-bearing raw requests,
 * through the pseudonymiser and sanitisers exactly as the instrumentation will, then written by
 * the real sink. The raw bytes of the database and its WAL must hold no canary, in any casing
 * or digit-only form, nor the plain SHA-256 hex of any canary. (The end-to-end canary across
 * the instrumented servers belongs to the instrumentation tests.)
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPseudonymizer, openAuditSink, retryAfterFromDetails, sanitizeLegacyError, sanitizePointer } from '../../src/audit/index.js';
import { captureLogger, makeEvent, tempDir } from './helpers.js';

const CANARY = {
  firstName: 'Zqcanaryfirst',
  lastName: 'Zqcanarylast',
  email: 'zq.canary.buyer@example.com',
  phone: '+1 555 555 0199',
  consent: 'I agree zq-canary-consent-7731',
  notes: 'zq-canary-note: call after 5pm',
  vin: '1ZQCANARY5VIN5512',
  apiKey: 'sk_test_zqcanary_8d7f6e5a',
  idempotencyKey: 'idem-zqcanary-4410',
  filterKeyEmail: 'filter.zqcanary@example.com',
  badPhone: '555-ZQ-0177',
};

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('the audit store holds no canary', () => {
  it('keeps raw request values and the key out of the database and WAL bytes (nor their SHA-256 hex)', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const params = {
      message: {
        messageId: 'msg-1',
        role: 'user',
        parts: [
          {
            kind: 'data',
            data: {
              type: 'lead.submit.request',
              customer: { first_name: CANARY.firstName, last_name: CANARY.lastName, email: CANARY.email, phone: CANARY.phone },
              consent: { consent_text: CANARY.consent },
              trade_in: { vin: CANARY.vin },
              notes: CANARY.notes,
              idempotency_key: CANARY.idempotencyKey,
              filters: { [CANARY.filterKeyEmail]: 'x' },
            },
          },
        ],
      },
    };
    const logger = captureLogger();
    // The key file is created beside the database (never inside it); its secret is a needle too.
    const p = loadPseudonymizer({ dbPath: t.db, env: {}, logger });
    const secret = readFileSync(`${t.db}.key`, 'utf8').trim();
    const sink = openAuditSink({ path: t.db, logger, handleSignals: false });
    const base = {
      client: p.client(CANARY.apiKey),
      fingerprint: p.fingerprint('SendMessage', 'lead.submit', params),
      idempotency: p.idempotency(CANARY.idempotencyKey),
      subject: p.subject(CANARY.email),
      key_id: p.keyId,
    };
    // Sanitised by the caller, as the classifier will do.
    sink.write(
      makeEvent(1, {
        ...base,
        skill: 'lead.submit',
        code: 'SCHEMA_VALIDATION_FAILED',
        violations: [
          { location: sanitizePointer(`/filters/${CANARY.filterKeyEmail}`), keyword: 'additionalProperties' },
          { location: sanitizePointer('/customer/phone'), keyword: 'pattern' },
        ],
        legacy_error: sanitizeLegacyError(`invalid phone ${CANARY.badPhone}`),
        retry_after_ms: retryAfterFromDetails({ retry_after_ms: 1000, echo: CANARY.email }),
      }),
    );
    // Not sanitised by the caller: the sink's own defence must hold.
    sink.write(
      makeEvent(2, {
        ...base,
        subject: p.subject(CANARY.phone),
        protocol: 'dmc12',
        skill: 'initiate_deal_handoff',
        code: 'INVALID_PHONE',
        legacy_error: `Phone ${CANARY.badPhone} is not valid for ${CANARY.email}`,
        violations: [
          { location: `/arguments/customer/${CANARY.email}`, keyword: 'format' },
          { location: `customer.${CANARY.firstName}[0]`, keyword: `${CANARY.notes}` },
        ],
        conformance: [CANARY.consent, 'dmc12.result-error'],
      }),
    );
    sink.recordTraffic([{ minute: 1_700_000_040_000, service: 'dealer-test', skill: 'lead.submit', client: base.client ?? '', requests: 2, errors: 2, retries: 0 }]);
    await sink.flush();
    const walWhileOpen = readFileSync(`${t.db}-wal`);
    await sink.close();
    const bytes = Buffer.concat([readFileSync(t.db), walWhileOpen]);
    expect(bytes.includes(Buffer.from('lead.submit'))).toBe(true); // the data is there…

    const needles = new Set<string>();
    for (const value of Object.values(CANARY)) {
      needles.add(value);
      needles.add(value.toLowerCase());
      needles.add(createHash('sha256').update(value).digest('hex'));
      const digits = value.replace(/\D/g, '');
      if (digits.length >= 7) needles.add(digits);
    }
    needles.add(createHash('sha256').update('zq.canary.buyer@example.com').digest('hex'));
    needles.add(createHash('sha256').update('+15555550199').digest('hex'));
    needles.add(secret);
    for (const needle of needles) {
      expect(bytes.includes(Buffer.from(needle, 'utf8')), `database/WAL contains ${needle}`).toBe(false);
    }
    const logs = JSON.stringify(logger.lines);
    for (const needle of needles) expect(logs.includes(needle), `log contains ${needle}`).toBe(false);
  });
});
