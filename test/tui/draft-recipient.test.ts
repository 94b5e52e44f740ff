// A storm's .eml drafted in the TUI is addressed like the CLI's: to the partner contact of the
// client's label (`aap-triage clients label … --contact`), unless addresses were given.
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditReader, sqliteReader } from '../../src/audit/index.js';
import { setClientLabel } from '../../src/audit/labels.js';
import { createTriageSource } from '../../src/tui/triage-source.js';
import { seededStore, STORM_CLIENT, T0 } from '../triage/seed.js';

const NOW = T0 + 3_600_000;
const WINDOW = { since: T0 - 3_600_000, until: NOW };

let store: ReturnType<typeof seededStore>;
beforeAll(() => {
  store = seededStore();
  setClientLabel(store.path, { client: STORM_CLIENT, name: 'Acme Motors', contact: 'oncall@acme.example.com', now: T0 });
});
afterAll(() => store.cleanup());

async function stormEmlTo(options: { to?: string }): Promise<string[]> {
  const db = openAuditReader(store.path);
  try {
    const source = createTriageSource(sqliteReader(db), options);
    const storm = (await source.storms(WINDOW)).find((s) => s.client === STORM_CLIENT);
    expect(storm).toBeDefined();
    const doc = await source.draft({ kind: 'storm', id: storm!.id }, WINDOW, NOW);
    if (!doc || 'error' in doc) throw new Error('no draft');
    const mail = await simpleParser(await source.eml(doc, NOW));
    return mail.to && !Array.isArray(mail.to) ? mail.to.value.map((v) => v.address ?? '') : [];
  } finally {
    db.close();
  }
}

describe('TUI storm drafts', () => {
  it('go to the partner contact of the client label', async () => {
    expect(await stormEmlTo({})).toEqual(['oncall@acme.example.com']);
  });
  it('go to the given address when one is configured', async () => {
    expect(await stormEmlTo({ to: 'desk@example.com' })).toEqual(['desk@example.com']);
  });
});
