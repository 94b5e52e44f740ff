import { loadClientLabels, type ClientLabels } from '../triage/clients.js';
import type { Db } from '../triage/rows.js';

/**
 * The client labels of the store; none when it has no label table yet (a store from before
 * schema 3, opened read-only, is not migrated by the UI).
 */
export async function labelsOf(db: Db): Promise<ClientLabels> {
  try {
    return await loadClientLabels(db);
  } catch {
    return new Map();
  }
}
