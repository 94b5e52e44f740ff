import { useEffect, useState } from 'react';
import { useAsync } from './use-async.js';
import type { TuiSource } from '../source.js';
import type { DraftDoc, DraftFormat, DraftTarget, ResolvedWindow } from '../types.js';

/** Inputs of {@link useDraft}. */
export interface UseDraftOptions {
  readonly source: TuiSource;
  /** Whether the Draft view is showing: nothing is drafted otherwise. */
  readonly active: boolean;
  /** What to draft, or null before the first `d`. A new object re-drafts. */
  readonly target: { readonly target: DraftTarget } | null;
  /** Window and time (epoch ms) read when the draft is made, not followed afterwards. */
  readonly window: ResolvedWindow;
  readonly now: number;
  /** Bumped by `r`: re-reads the store. */
  readonly nonce: number;
  readonly format: DraftFormat;
  /** Clock for the `.eml` Date header, epoch ms. */
  readonly clock: () => number;
}

/**
 * The incident draft of the Draft view: the document (null when the target selects no errors
 * or drafting failed) and the text shown in the chosen format. Drafts are re-read on `r`
 * (`nonce`), not on every refresh tick, so the text does not jump under the operator; the
 * `.eml` form is built asynchronously (nodemailer) and shows `building the .eml…` until then.
 */
export function useDraft({ source, active, target, window, now, nonce, format, clock }: UseDraftOptions): { doc: DraftDoc | null; text: string } {
  const draft = useAsync<{ doc: DraftDoc | null; problem: string | null }>(
    async () => {
      if (!active || !target) return { doc: null, problem: null };
      try {
        const doc = await source.draft(target.target, window, now);
        return { doc, problem: doc ? null : 'the draft selects no errors (pruned, or outside the window?)' };
      } catch (err) {
        return { doc: null, problem: `could not draft: ${(err as Error).message}` };
      }
    },
    [source, active, target, nonce], // window/now are read at draft time on purpose
    { doc: null, problem: null },
  );
  const [eml, setEml] = useState<{ doc: DraftDoc; text: string } | null>(null);
  useEffect(() => {
    const doc = draft.doc;
    if (format !== 'eml' || !doc || eml?.doc === doc) return;
    let live = true;
    source.eml(doc, clock()).then(
      (text) => live && setEml({ doc, text }),
      (err: Error) => live && setEml({ doc, text: `could not build the .eml: ${err.message}` }),
    );
    return () => {
      live = false;
    };
  }, [source, format, draft.doc, eml, clock]);
  const text =
    draft.problem ??
    (!draft.doc ? '' : format === 'text' ? draft.doc.text : format === 'md' ? draft.doc.markdown : eml?.doc === draft.doc ? eml.text : 'building the .eml…');
  return { doc: draft.doc, text };
}
