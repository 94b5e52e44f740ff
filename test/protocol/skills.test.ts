import { describe, expect, it } from 'vitest';
import { AAP_SKILLS, DMC12_TOOLS, KNOWN_SKILLS, SKILL_OTHER, allowListedSkill, classifyCall } from '../../src/protocol/index.js';
import { type AapExample, type Dmc12Example, HAVE_REFERENCE, SKIP_REASON, readReference } from './reference.js';

if (!HAVE_REFERENCE) console.info(`skipping the skill-list checks against reference vectors: ${SKIP_REASON}`);

describe('known skills and tools', () => {
  it('list the five AAP skills, then the DMC-12 tools, once each', () => {
    expect([...AAP_SKILLS]).toEqual(['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle', 'lead.submit']);
    expect(KNOWN_SKILLS).toEqual([...AAP_SKILLS, ...DMC12_TOOLS]);
    expect(new Set(KNOWN_SKILLS).size).toBe(KNOWN_SKILLS.length);
    expect(Object.isFrozen(KNOWN_SKILLS)).toBe(true);
  });

  it('include the DMC-12 tools the spec and the demo dealer name', () => {
    for (const tool of ['search_inventory', 'get_vehicle', 'request_quote', 'create_reservation', 'release_reservation', 'initiate_deal_handoff']) {
      expect(DMC12_TOOLS).toContain(tool);
    }
  });

  it('hold every skill as classifyCall reports it from a request', () => {
    const known = new Set(KNOWN_SKILLS);
    for (const skill of AAP_SKILLS) {
      const call = classifyCall({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { type: `${skill}.request` } }] } },
      });
      expect(call.skill).toBe(skill);
      expect(known.has(call.skill!)).toBe(true);
    }
    const tool = classifyCall({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'request_quote', arguments: {} } });
    expect(known.has(tool.skill!)).toBe(true);
  });
});

describe('allowListedSkill', () => {
  const known = new Set(KNOWN_SKILLS);

  it('keeps a known name, turns any other into _OTHER, and leaves no skill as null', () => {
    expect(allowListedSkill('inventory.search', known)).toBe('inventory.search');
    expect(allowListedSkill('create_reservation', known)).toBe('create_reservation');
    expect(SKILL_OTHER).toBe('_OTHER');
    expect(allowListedSkill('export_all_customers', known)).toBe('_OTHER');
    expect(allowListedSkill('Inventory.Search', known)).toBe('_OTHER'); // exact match only
    expect(allowListedSkill('jane.doe@example.com', known)).toBe('_OTHER');
    expect(allowListedSkill('__proto__', known)).toBe('_OTHER');
    expect(allowListedSkill('', known)).toBe('_OTHER');
    expect(allowListedSkill(null, known)).toBeNull();
    expect(allowListedSkill(undefined, known)).toBeNull();
  });

  it('uses the set it is given, not the default', () => {
    expect(allowListedSkill('my_tool', new Set(['my_tool']))).toBe('my_tool');
    expect(allowListedSkill('inventory.search', new Set(['my_tool']))).toBe('_OTHER');
  });
});

describe.skipIf(!HAVE_REFERENCE)('known skills against the shared reference vectors', () => {
  it('cover exactly the skills the AAP examples send as "<skill>.request"', () => {
    const items = readReference<AapExample[]>('aap-examples.json');
    const seen = new Set<string>();
    for (const item of items) {
      for (const m of JSON.stringify(item.payload).matchAll(/"type":"([a-z]+(?:\.[a-z]+)+)\.request"/g)) seen.add(m[1]!);
    }
    expect([...seen].sort()).toEqual([...AAP_SKILLS].sort());
  });

  it('include the DMC-12 tools the DMC-12 examples name', () => {
    const items = readReference<Dmc12Example[]>('dmc12-error-examples.json');
    const text = JSON.stringify(items);
    for (const tool of ['request_quote', 'initiate_deal_handoff']) {
      expect(text).toContain(tool);
      expect(DMC12_TOOLS).toContain(tool);
    }
  });
});
