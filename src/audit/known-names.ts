import { AAP_REQUEST_PROPERTY_NAMES } from './known-names.data.js';

/**
 * JSON-RPC 2.0 and A2A v1.0 envelope names a validation pointer may walk through
 * (`/params/message/parts/0/data/filters`). Names only: never a value.
 */
export const ENVELOPE_PROPERTY_NAMES: readonly string[] = [
  'jsonrpc',
  'method',
  'params',
  'id',
  'message',
  'messageId',
  'role',
  'kind',
  'parts',
  'data',
  'text',
  'file',
  'metadata',
  'contextId',
  'taskId',
  'referenceTaskIds',
  'extensions',
  'configuration',
  'acceptedOutputModes',
  'historyLength',
  'blocking',
  'mediaType',
];

/**
 * DMC-12 `tools/call` argument names (from `spec/dmc12-errors.txt` and the DMC-12 tools:
 * `search_inventory`, `get_vehicle`, `create_quote`, `create_reservation`,
 * `initiate_deal_handoff`, …). Kept by hand: DMC-12 publishes no request schemas.
 */
export const DMC12_ARGUMENT_NAMES: readonly string[] = [
  'name',
  'arguments',
  '_meta',
  'vin',
  'vins',
  'quote_id',
  'reservation_token',
  'reservation_id',
  'handoff_id',
  'deal_id',
  'customer',
  'customer_consent',
  'email',
  'phone',
  'first_name',
  'last_name',
  'consent',
  'consent_text',
  'expires_at',
  'dealer_id',
  'rooftop_id',
  'stock_number',
  'zip',
  'postal_code',
  'radius',
  'radius_miles',
  'make',
  'model',
  'trim',
  'year',
  'year_min',
  'year_max',
  'price_min',
  'price_max',
  'mileage_max',
  'condition',
  'body_style',
  'limit',
  'offset',
  'cursor',
  'sort',
  'filters',
  'trade_in',
  'down_payment',
  'term_months',
  'financing',
  'deposit',
  'amount',
  'currency',
  'notes',
  'idempotency_key',
];

/**
 * The default set of segment names `sanitizePointer` keeps (DESIGN §5): the AAP v1.1 request
 * schemas' property names (generated, see `generate-known-names.mjs`), the JSON-RPC / A2A
 * envelope names and the DMC-12 argument names.
 */
export const DEFAULT_KNOWN_NAMES: ReadonlySet<string> = new Set([
  ...AAP_REQUEST_PROPERTY_NAMES,
  ...ENVELOPE_PROPERTY_NAMES,
  ...DMC12_ARGUMENT_NAMES,
]);
