/**
 * Which AAP error form each endpoint serves (issue 15; spec/aap-errors.txt "Errors": "Existing
 * v1.3 endpoints retain their released error shape"). A form is set per endpoint by the
 * `aapForm` option, or, for `auto`, read from the agent card: the version of its AAP extension
 * (`capabilities.extensions[]`, `params.version`, else the `/vX.Y` at the end of its URI), mapped
 * to the paths of the card's JSON-RPC interfaces. The card comes from the `agentCard` option or
 * from the card the host itself serves (`/.well-known/agent-card.json`, seen on its way out).
 */
import { own } from '../protocol/extract.js';
import type { AapForm, TriageOptions } from './types.js';

/** A form the envelope can take. */
export type WireAapForm = '2.0' | 'released';

/** The `aapForm` option: one form for every endpoint, or one per request path (`'*'`: the others). */
type AapFormOption = NonNullable<TriageOptions['aapForm']>;

/** What the rewrite uses for one endpoint: the form to write and whether it is known. */
export interface EndpointForm {
  /** The form a promoted `AapError` is written in (2.0 when nothing says otherwise). */
  form: WireAapForm;
  /** True when set by the option or read from a card (the checker then holds responses to it). */
  known: boolean;
}


/** Paths an agent card is served at (A2A 1.0 §8.2, and 0.3's name). */
const CARD_PATHS = ['/.well-known/agent-card.json', '/.well-known/agent.json'];

/** True when `path` (no query) is where an agent card is served. */
export function isAgentCardPath(path: string): boolean {
  return CARD_PATHS.some((p) => path.endsWith(p));
}

/**
 * The AAP error form of a version string: major version 2 or later is the 2.0 array, 1.x and
 * 0.x the released object; null when it names no version.
 */
export function formOfVersion(version: unknown): WireAapForm | null {
  if (typeof version !== 'string') return null;
  const m = /(?:^|[/v])(\d{1,3})(?:\.(\d{1,3}))?(?:[.-]|$)/.exec(version.trim());
  if (!m) return null;
  return Number(m[1]) >= 2 ? '2.0' : 'released';
}

/** The form an extension URI names by its last segment (`…/extensions/aap/v1.3` → released); null when it names none. */
export function formOfExtensionUri(uri: unknown): WireAapForm | null {
  if (typeof uri !== 'string') return null;
  const last = uri.replace(/\/+$/, '').split('/').at(-1) ?? '';
  return /^v?\d/.test(last) ? formOfVersion(last) : null;
}

/**
 * Reads an agent card (A2A 1.0 `supportedInterfaces[]`, 0.3 `url` + `additionalInterfaces[]`):
 * the form of its AAP extension and the paths of its interfaces. Null when the card declares no
 * AAP extension with a readable version. Never throws.
 */
export function readAgentCard(card: unknown): { form: WireAapForm; paths: string[] } | null {
  const extensions = own(own(card, 'capabilities'), 'extensions');
  if (!Array.isArray(extensions)) return null;
  let form: WireAapForm | null = null;
  for (const ext of extensions) {
    const uri = own(ext, 'uri');
    if (typeof uri !== 'string' || !/\/extensions\/aap(?:\/|$)/i.test(uri)) continue;
    form = formOfVersion(own(own(ext, 'params'), 'version')) ?? formOfExtensionUri(uri);
    if (form) break;
  }
  if (!form) return null;
  const urls: unknown[] = [own(card, 'url')];
  for (const list of [own(card, 'supportedInterfaces'), own(card, 'additionalInterfaces')]) {
    if (Array.isArray(list)) for (const i of list) urls.push(own(i, 'url'));
  }
  const paths: string[] = [];
  for (const u of urls) {
    if (typeof u !== 'string' || !URL.canParse(u)) continue;
    const path = new URL(u).pathname;
    if (!paths.includes(path)) paths.push(path);
  }
  return { form, paths };
}

const MAX_LEARNED_PATHS = 64;

/** The forms of one triage's endpoints. Resolved once from the options; cards add to it. */
export class EndpointForms {
  private readonly fixed: ReadonlyMap<string, AapForm>;
  private readonly fallback: AapForm;
  private readonly learned = new Map<string, WireAapForm>();
  /** The form of the last card read, for paths no card names (a proxy may rewrite paths). */
  private cardForm: WireAapForm | null = null;

  /**
   * @param option the `aapForm` option (default `auto`)
   * @param requiredExtensionUri the `requiredExtensionUri` option; its `/vX.Y` is a hint for `auto`
   * @param agentCard the `agentCard` option, read at once
   */
  constructor(option: AapFormOption | undefined, private readonly requiredExtensionUri: string | null, agentCard?: unknown) {
    if (typeof option === 'string' || option === undefined) {
      this.fixed = new Map();
      this.fallback = option ?? 'auto';
    } else {
      this.fixed = new Map(Object.entries(option).filter(([k]) => k !== '*'));
      this.fallback = option['*'] ?? 'auto';
    }
    if (agentCard !== undefined) this.learnCard(agentCard);
  }

  /** Reads a card the host served (or was given). Never throws. */
  learnCard(card: unknown): void {
    const read = readAgentCard(card);
    if (!read) return;
    this.cardForm = read.form;
    for (const p of read.paths) {
      if (this.learned.size >= MAX_LEARNED_PATHS && !this.learned.has(p)) break;
      this.learned.set(p, read.form);
    }
  }

  /** The form of the endpoint at request path `path` (query excluded). */
  formFor(path: string): EndpointForm {
    const set = this.fixed.get(path) ?? this.fallback;
    if (set !== 'auto') return { form: set, known: true };
    const read = this.learned.get(path) ?? this.cardForm ?? formOfExtensionUri(this.requiredExtensionUri);
    return read ? { form: read, known: true } : { form: '2.0', known: false };
  }
}
