/**
 * The demo-only map from client pseudonym to buyer name. The audit store holds only keyed
 * pseudonyms; the demo knows its buyers' API keys, so with the same key it can say which buyer a
 * storm is. A real operator does the same with `aap-triage hash <api key>` or `client:<api key>`.
 */
import type { Persona } from '../../demo/buyers/personas.js';
import { loadPseudonymizer } from '../../triage/store.js';

/** Pseudonym → persona, for the key beside `dbPath` (empty when the key cannot be read). */
export function buyerNamesByClient(dbPath: string, roster: readonly Persona[]): Map<string, Persona> {
  const map = new Map<string, Persona>();
  try {
    const p = loadPseudonymizer({ dbPath, create: false });
    for (const persona of roster) {
      const client = p.client(persona.apiKey);
      if (client) map.set(client, persona);
    }
  } catch {
    // No key: the report shows pseudonyms only.
  }
  return map;
}
