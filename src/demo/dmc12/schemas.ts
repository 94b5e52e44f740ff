/**
 * Argument schemas of the demo DMC-12 tools (project-defined, ajv with `allErrors`). A failure is
 * VALIDATION_FAILED (spec/dmc12-errors.txt): "VIN shape, E.164 phone, email, lengths, missing
 * consent".
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** The tools the demo DMC-12 dealer serves. */
export const DMC12_TOOLS = [
  'search_inventory',
  'get_vehicle',
  'request_quote',
  'create_reservation',
  'release_reservation',
  'initiate_deal_handoff',
] as const;
/**
 * One tool name of {@link DMC12_TOOLS} (`'create_reservation'`): the `params.name` of a JSON-RPC
 * `tools/call`, whose `params.arguments` are checked against that tool's schema
 * (VALIDATION_FAILED on failure, and for a name outside the list; spec/dmc12-errors.txt "The full
 * code set").
 */
export type Dmc12Tool = (typeof DMC12_TOOLS)[number];

const VIN = { type: 'string', pattern: '^[A-HJ-NPR-Z0-9]{17}$' };
const id = (prefix: string) => ({ type: 'string', pattern: `^${prefix}_[a-z0-9_]{1,64}$` });

const SCHEMAS: Record<Dmc12Tool, object> = {
  search_inventory: {
    type: 'object',
    properties: {
      make: { type: 'string', maxLength: 64 },
      model: { type: 'string', maxLength: 64 },
      condition: { type: 'string', enum: ['new', 'used', 'cpo'] },
      max_price: { type: 'number', minimum: 0 },
      page: { type: 'integer', minimum: 1, maximum: 100 },
    },
    additionalProperties: false,
  },
  get_vehicle: { type: 'object', properties: { vin: VIN }, required: ['vin'], additionalProperties: false },
  request_quote: {
    type: 'object',
    properties: { vin: VIN, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
    required: ['vin'],
    additionalProperties: false,
  },
  create_reservation: { type: 'object', properties: { quote_id: id('q') }, required: ['quote_id'], additionalProperties: false },
  release_reservation: { type: 'object', properties: { reservation_token: id('rsv') }, required: ['reservation_token'], additionalProperties: false },
  initiate_deal_handoff: {
    type: 'object',
    properties: {
      reservation_token: id('rsv'),
      customer: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          email: { type: 'string', format: 'email' },
          phone: { type: 'string', pattern: '^\\+[1-9][0-9]{7,14}$' },
        },
        required: ['name', 'email', 'phone'],
        additionalProperties: false,
      },
      customer_consent: {
        type: 'object',
        properties: { granted_at: { type: 'string', format: 'date-time' }, expires_at: { type: 'string', format: 'date-time' } },
        required: ['granted_at', 'expires_at'],
        additionalProperties: false,
      },
      notes: { type: 'string', maxLength: 2000 },
    },
    required: ['reservation_token', 'customer', 'customer_consent'],
    additionalProperties: false,
  },
};

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
// verbose: keep the failing value (e.data) so the message can echo it, as DMC-12 does.
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
addFormats(ajv);
const VALIDATORS = Object.fromEntries(DMC12_TOOLS.map((t) => [t, ajv.compile(SCHEMAS[t])])) as Record<Dmc12Tool, ValidateFunction>;

/** True when `name` is a tool the demo serves. */
export function isDmc12Tool(name: unknown): name is Dmc12Tool {
  return typeof name === 'string' && (DMC12_TOOLS as readonly string[]).includes(name);
}

/**
 * Validates tool arguments. Returns one human-readable line per problem, echoing the offending
 * value as DMC-12 servers do ("Validation-error messages you receive echo your own input") —
 * the wire may carry it; the audit store never does.
 */
export function validateToolArgs(tool: Dmc12Tool, args: unknown): string[] {
  const validate = VALIDATORS[tool];
  if (validate(args)) return [];
  return (validate.errors ?? []).map((e) => describe(e));
}

function describe(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') return `${e.instancePath || '/'}: missing ${String(params.missingProperty)}`;
  if (e.keyword === 'additionalProperties') return `${e.instancePath || '/'}: unknown field ${String(params.additionalProperty)}`;
  return `${e.instancePath}: ${JSON.stringify(e.data)} ${e.message ?? 'is invalid'}`;
}
