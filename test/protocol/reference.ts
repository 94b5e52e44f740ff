// Loads the shared reference vectors (../shared/reference from the repo root) at test time.
// They are not copied into the project; where ../shared is absent (a user's clone), the
// dependent suites skip with SKIP_REASON.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

// AAP_TRIAGE_SHARED_DIR points elsewhere (or at a missing folder, to exercise the skip path).
const SHARED_DIR = process.env.AAP_TRIAGE_SHARED_DIR ?? fileURLToPath(new URL('../../../shared/', import.meta.url));
export const REFERENCE_DIR = join(SHARED_DIR, 'reference');
export const HAVE_REFERENCE = existsSync(join(REFERENCE_DIR, 'aap-examples.json'));
export const SKIP_REASON = `reference vectors not found at ${REFERENCE_DIR} (../shared is absent in a plain clone)`;

export function readReference<T = unknown>(relativePath: string): T {
  return JSON.parse(readFileSync(join(REFERENCE_DIR, relativePath), 'utf8')) as T;
}

export interface AapExample {
  source: string;
  kind: 'request' | 'response' | 'error';
  form?: string;
  aap_version?: string;
  payload: Record<string, unknown>;
}

export interface Dmc12Example {
  source: string;
  kind: string;
  payload: Record<string, unknown>;
  expected_error_code?: string;
  expected_retryable?: boolean;
}

export const SPEC_DIR = join(SHARED_DIR, 'spec');
export const HAVE_SPEC = existsSync(join(SPEC_DIR, 'aap-errors.txt'));

export function readSpec(name: string): string {
  return readFileSync(join(SPEC_DIR, name), 'utf8');
}
