/**
 * Schema-level checks: the project's JSON Schemas (`schemas.ts`) compiled once with ajv, on first
 * use (a process that never checks an envelope pays nothing). `format: "date-time"` is
 * `isRfc3339`, the project's one RFC 3339 check, rather than ajv-formats' (which accepts a space
 * for `T` and offsets without a colon).
 */
import { createRequire } from 'node:module';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { isRfc3339 } from './builders/common.js';
import {
  AAP_ERROR_2_0_SCHEMA,
  AAP_ERROR_DATA_2_0_SCHEMA,
  AAP_ERROR_RELEASED_SCHEMA,
  BAD_REQUEST_SCHEMA,
  ERROR_INFO_SCHEMA,
} from './schemas.js';

interface Validators {
  released: ValidateFunction;
  data20: ValidateFunction;
}

let validators: Validators | undefined;

function compile(): Validators {
  // ajv (80-odd modules) is loaded here, synchronously (it is CommonJS), not at import: a library
  // entry point that never checks an envelope does not load it (issue 13).
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof Ajv2020Module;
  // strictTuples off: the data array is a leading ErrorInfo followed by any number of entries.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTuples: false, validateFormats: true });
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => isRfc3339(s) });
  ajv.addSchema([ERROR_INFO_SCHEMA, BAD_REQUEST_SCHEMA, AAP_ERROR_2_0_SCHEMA] as object[]);
  return { released: ajv.compile(AAP_ERROR_RELEASED_SCHEMA as object), data20: ajv.compile(AAP_ERROR_DATA_2_0_SCHEMA as object) };
}

/** At most this many schema errors are named in one finding. */
const MAX_LISTED = 5;

/** The payload's own `retryable` (not ErrorInfo metadata's): rule `aap.retryable-boolean` reports its type. */
const PAYLOAD_RETRYABLE = /^(?:\/\d+)?\/retryable$/;

function describe(errors: readonly ErrorObject[] | null | undefined): string | null {
  // `if` errors only say "must match then schema"; the errors under `then` say what is wrong.
  // A non-boolean retryable has its own rule, so one broken habit is one finding, not two.
  const useful = (errors ?? []).filter((e) => e.keyword !== 'if' && !(e.keyword === 'type' && PAYLOAD_RETRYABLE.test(e.instancePath)));
  if (useful.length === 0) return null;
  const text = useful.slice(0, MAX_LISTED).map((e) => {
    const extra =
      e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})` : '';
    return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
  });
  return text.join('; ') + (useful.length > MAX_LISTED ? `; and ${useful.length - MAX_LISTED} more` : '');
}

/**
 * The released-form payload (`error.data` of a v1.0–1.3 endpoint) against
 * `AAP_ERROR_RELEASED_SCHEMA`: null when it validates, else the ajv errors as one line.
 */
export function releasedSchemaProblems(payload: unknown): string | null {
  validators ??= compile();
  return validators.released(payload) ? null : describe(validators.released.errors);
}

/**
 * The 2.0 `error.data` array against `AAP_ERROR_DATA_2_0_SCHEMA` (ErrorInfo first, known `@type`
 * entries against their schemas): null when it validates, else the ajv errors as one line.
 */
export function data20SchemaProblems(data: unknown): string | null {
  validators ??= compile();
  return validators.data20(data) ? null : describe(validators.data20.errors);
}
