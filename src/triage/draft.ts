/**
 * Incident drafts (DESIGN §7): the facts read from the store (draft-facts.ts), the guidance rules
 * (draft-advice.ts) and the document laid out as text and Markdown (draft-document.ts), in one call.
 */
import { buildIncident, type DraftOptions, type DraftSource, type IncidentFacts } from './draft-facts.js';
import { incidentDocument } from './draft-document.js';
import { renderDocumentMarkdown, renderDocumentText } from '../incident/index.js';
import type { Db } from './rows.js';

export { buildIncident, type DraftOptions, type DraftSource, type IncidentFacts } from './draft-facts.js';
export type { CodeGuidance, RequestedAction } from './draft-advice.js';
export { incidentDocument, incidentSubject, renderIncidentMarkdown, renderIncidentText, shortClient } from './draft-document.js';

/** An incident draft in both text forms. */
export interface IncidentDraft {
  subject: string;
  text: string;
  markdown: string;
  facts: IncidentFacts;
}

/**
 * An incident draft (subject, text, Markdown, facts) for a storm, a query or error ids;
 * undefined when the source selects nothing. See `buildIncident`; `buildIncidentEml` makes the .eml.
 */
export async function draftIncident(db: Db, source: DraftSource, options: DraftOptions = {}): Promise<IncidentDraft | undefined> {
  const facts = await buildIncident(db, source, options);
  if (!facts) return undefined;
  const document = incidentDocument(facts);
  return { subject: document.subject, text: renderDocumentText(document), markdown: renderDocumentMarkdown(document), facts };
}
