/**
 * Request schemas of the demo AAP dealer's five skills, defined by the project itself (after the
 * public AAP v1.1 schemas, trimmed to the fields the demo serves) and compiled once with ajv
 * (`allErrors: true`, so a bad request is answered with EVERY problem at once, as
 * spec/aap-errors.txt "details.errors[] — all problems at once" requires).
 *
 * Deliberate differences from the public schemas, so the skill logic can answer the more precise
 * codes the spec asks for: `consent` is optional and its `consent_text` may be empty
 * (CONTACT_CONSENT_REQUIRED / INVALID_CONSENT are decided by the skill), and a vehicle's
 * `condition` accepts both vocabularies (INVALID_CONDITION is decided by the skill).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** One entry of `details.errors[]` (JSON-Schema 2020-12 output unit shape). */
export interface ValidationIssue {
  instanceLocation: string;
  keyword: string;
  error: string;
}

/** The AAP skills the demo dealer implements, in agent-card order. */
export const AAP_SKILLS = ['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle', 'lead.submit'] as const;
/**
 * One skill id of {@link AAP_SKILLS} (`'inventory.search'`): the agent card's `skills[].id` and,
 * with `.request` appended, the `type` of the `parts[0].data` payload a buyer sends. A payload
 * naming any other skill is UNSUPPORTED_SKILL (spec/aap-errors.txt "UNSUPPORTED_SKILL").
 */
export type AapSkill = (typeof AAP_SKILLS)[number];

const stringList = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 20 };
const enumList = (values: string[]) => ({ type: 'array', items: { type: 'string', enum: values }, maxItems: 20 });
const CONDITIONS_ALL = ['new', 'used', 'cpo', 'excellent', 'good', 'fair', 'poor'];
const VIN = { type: 'string', pattern: '^[A-HJ-NPR-Z0-9]{17}$' };

const filters = {
  type: 'object',
  properties: {
    make: stringList,
    model: stringList,
    trim: stringList,
    condition: enumList(['new', 'used', 'cpo']),
    body: enumList(['sedan', 'suv', 'truck', 'hatchback', 'coupe']),
    fuel: enumList(['gas', 'hybrid', 'electric', 'diesel']),
    driveline: enumList(['fwd', 'rwd', 'awd', '4wd']),
    transmission: enumList(['automatic', 'manual']),
    rooftops: stringList,
    year_min: { type: 'integer', minimum: 1900, maximum: 2100 },
    year_max: { type: 'integer', minimum: 1900, maximum: 2100 },
    price_min: { type: 'number', minimum: 0 },
    price_max: { type: 'number', minimum: 0 },
    mileage_max: { type: 'integer', minimum: 0 },
    vin: VIN,
    stock: { type: 'string', maxLength: 32 },
  },
  additionalProperties: false,
};

const vehicleRef = {
  type: 'object',
  properties: {
    vin: VIN,
    stock: { type: 'string', maxLength: 32 },
    vehicle_id: { type: 'string', maxLength: 64 },
    year: { type: 'integer', minimum: 1900, maximum: 2100 },
    make: { type: 'string', maxLength: 64 },
    model: { type: 'string', maxLength: 64 },
    trim: { type: 'string', maxLength: 64 },
    mileage: { type: 'integer', minimum: 0 },
    condition: { type: 'string', enum: CONDITIONS_ALL },
  },
  additionalProperties: false,
};

const SCHEMAS: Record<AapSkill, object> = {
  'dealer.information': {
    type: 'object',
    properties: { type: { const: 'dealer.information.request' } },
    required: ['type'],
    additionalProperties: false,
  },
  'inventory.facets': {
    type: 'object',
    properties: { type: { const: 'inventory.facets.request' }, filters },
    required: ['type'],
    additionalProperties: false,
  },
  'inventory.search': {
    type: 'object',
    properties: {
      type: { const: 'inventory.search.request' },
      filters,
      pagination: {
        type: 'object',
        properties: { skip: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
        additionalProperties: false,
      },
      sort: {
        type: 'object',
        properties: {
          field: { type: 'string', enum: ['price', 'mileage', 'year', 'make', 'model', 'stock'] },
          order: { type: 'string', enum: ['asc', 'desc'] },
        },
        required: ['field', 'order'],
        additionalProperties: false,
      },
      privacy: { type: 'object', properties: { anonymous: { type: 'boolean' } }, additionalProperties: false },
    },
    required: ['type'],
    additionalProperties: false,
  },
  'inventory.vehicle': {
    type: 'object',
    properties: {
      type: { const: 'inventory.vehicle.request' },
      vin: VIN,
      stock: { type: 'string', maxLength: 32 },
      vehicle_id: { type: 'string', maxLength: 64 },
    },
    required: ['type'],
    anyOf: [{ required: ['vin'] }, { required: ['stock'] }, { required: ['vehicle_id'] }],
    additionalProperties: false,
  },
  'lead.submit': {
    type: 'object',
    properties: {
      type: { const: 'lead.submit.request' },
      customer: {
        type: 'object',
        properties: {
          first_name: { type: 'string', minLength: 1, maxLength: 100 },
          last_name: { type: 'string', minLength: 1, maxLength: 100 },
          email: { type: 'string', format: 'email' },
          phone: { type: 'string', pattern: '^\\+[1-9]\\d{1,14}$' },
          preferred_contact: { type: 'string', enum: ['email', 'phone', 'sms', 'any'] },
        },
        required: ['first_name', 'last_name'],
        anyOf: [{ required: ['email'] }, { required: ['phone'] }],
        additionalProperties: false,
      },
      consent: {
        type: 'object',
        properties: {
          granted_at: { type: 'string', format: 'date-time' },
          expires_at: { type: 'string', format: 'date-time' },
          allowed_channels: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: ['email', 'phone', 'sms'] } },
          consent_text: { type: 'string', maxLength: 4000 },
          scope: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 10 },
        },
        required: ['granted_at', 'allowed_channels', 'consent_text', 'scope'],
        additionalProperties: false,
      },
      vehicle_of_interest: vehicleRef,
      trade_in: vehicleRef,
      appointment: {
        type: 'object',
        properties: {
          appointment_type: { type: 'string', enum: ['test_drive', 'sales_consultation', 'service', 'appraisal'] },
          appointment_at: { type: 'string', format: 'date-time' },
          duration_minutes: { type: 'integer', minimum: 15, maximum: 240 },
          notes: { type: 'string', maxLength: 2000 },
        },
        required: ['appointment_type', 'appointment_at'],
        additionalProperties: false,
      },
      message: { type: 'string', maxLength: 4000 },
      source_agent: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, url: { type: 'string', format: 'uri' } },
        required: ['name'],
        additionalProperties: false,
      },
      submitted_at: { type: 'string', format: 'date-time' },
      idempotency_key: { type: 'string', minLength: 1, maxLength: 128 },
    },
    required: ['type', 'customer', 'source_agent'],
    additionalProperties: false,
  },
};

// ajv-formats is CommonJS with `exports.default`; NodeNext sees the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const VALIDATORS = Object.fromEntries(AAP_SKILLS.map((s) => [s, ajv.compile(SCHEMAS[s])])) as Record<AapSkill, ValidateFunction>;

/** True when `skill` is one of the five the demo dealer serves. */
export function isAapSkill(skill: string): skill is AapSkill {
  return (AAP_SKILLS as readonly string[]).includes(skill);
}

/**
 * Validates one skill request payload (the `data` of the message's first part). Returns every
 * problem found, each as a JSON pointer into the payload, the failing keyword and a message;
 * an empty list when the payload is valid.
 */
export function validateSkillRequest(skill: AapSkill, payload: unknown): ValidationIssue[] {
  const validate = VALIDATORS[skill];
  if (validate(payload)) return [];
  return (validate.errors ?? []).filter((e) => e.keyword !== 'if').map(toIssue);
}

function toIssue(e: ErrorObject): ValidationIssue {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') {
    return { instanceLocation: `${e.instancePath}/${escape(String(params.additionalProperty))}`, keyword: e.keyword, error: 'unknown property' };
  }
  if (e.keyword === 'required') {
    return { instanceLocation: `${e.instancePath}/${escape(String(params.missingProperty))}`, keyword: e.keyword, error: 'is required' };
  }
  return { instanceLocation: e.instancePath === '' ? '' : e.instancePath, keyword: e.keyword, error: e.message ?? 'is invalid' };
}

/** RFC 6901 escaping of one pointer segment. */
function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
