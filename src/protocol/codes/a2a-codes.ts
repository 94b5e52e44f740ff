import type { A2AErrorInfo, CodeInfo } from '../types.js';

/**
 * A2A protocol errors -32001 … -32009, keyed by their google.rpc.ErrorInfo `reason`
 * (A2A v1.0 §9.5; reasons and names as @a2a-js/sdk 1.3 spells them). They are raised by the A2A
 * layer, not by AAP skill logic, and keep A2A's own shape (spec/aap-errors.txt
 * "A2A protocol-level errors"). `retryable` is our default for a client with no other signal.
 */
export type A2AReason =
  | 'TASK_NOT_FOUND'
  | 'TASK_NOT_CANCELABLE'
  | 'PUSH_NOTIFICATION_NOT_SUPPORTED'
  | 'UNSUPPORTED_OPERATION'
  | 'CONTENT_TYPE_NOT_SUPPORTED'
  | 'INVALID_AGENT_RESPONSE'
  | 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'
  | 'EXTENSION_SUPPORT_REQUIRED'
  | 'VERSION_NOT_SUPPORTED';

const A2A = 'A2A v1.0 §9.5 error codes';
const AAP_A2A = 'AAP "Errors" page, "A2A protocol-level errors"';

/** The A2A protocol error table, keyed by reason. Frozen data. */
export const A2A_ERRORS: Readonly<Record<A2AReason, A2AErrorInfo>> = Object.freeze({
  TASK_NOT_FOUND: {
    code: 'TASK_NOT_FOUND',
    protocol: 'a2a',
    errorName: 'TaskNotFoundError',
    meaning: 'The task id does not exist or has expired.',
    jsonrpcCode: -32001,
    retryable: false,
    clientAction: 'Stop polling this task id; start a new request.',
    specSection: A2A,
  },
  TASK_NOT_CANCELABLE: {
    code: 'TASK_NOT_CANCELABLE',
    protocol: 'a2a',
    errorName: 'TaskNotCancelableError',
    meaning: 'The task is in a state that cannot be canceled.',
    jsonrpcCode: -32002,
    retryable: false,
    clientAction: 'Treat the task as finished; do not retry the cancel.',
    specSection: A2A,
  },
  PUSH_NOTIFICATION_NOT_SUPPORTED: {
    code: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    protocol: 'a2a',
    errorName: 'PushNotificationNotSupportedError',
    meaning: 'A push notification config operation was called and capabilities.pushNotifications is false or absent.',
    jsonrpcCode: -32003,
    retryable: false,
    clientAction: 'Check the agent card capabilities; use blocking calls instead of push notifications.',
    specSection: AAP_A2A,
  },
  UNSUPPORTED_OPERATION: {
    code: 'UNSUPPORTED_OPERATION',
    protocol: 'a2a',
    errorName: 'UnsupportedOperationError',
    meaning: 'Streaming, the extended card or a task operation was called without the capability being declared.',
    jsonrpcCode: -32004,
    retryable: false,
    clientAction: 'Check the agent card capabilities and call only declared operations; do not retry.',
    specSection: AAP_A2A,
  },
  CONTENT_TYPE_NOT_SUPPORTED: {
    code: 'CONTENT_TYPE_NOT_SUPPORTED',
    protocol: 'a2a',
    errorName: 'ContentTypeNotSupportedError',
    meaning: "An input part's mediaType is unsupported, or none of acceptedOutputModes can be produced.",
    jsonrpcCode: -32005,
    retryable: false,
    clientAction: 'Fix the request: send application/json and the skill media types the agent card lists.',
    specSection: AAP_A2A,
  },
  INVALID_AGENT_RESPONSE: {
    code: 'INVALID_AGENT_RESPONSE',
    protocol: 'a2a',
    errorName: 'InvalidAgentResponseError',
    meaning: 'The agent produced a response that does not conform to the A2A specification.',
    jsonrpcCode: -32006,
    retryable: false,
    clientAction: 'Surface to the operator: the dealer agent is broken.',
    specSection: A2A,
  },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: {
    code: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    protocol: 'a2a',
    errorName: 'ExtendedAgentCardNotConfiguredError',
    meaning: 'The extended agent card was requested but the agent has none configured.',
    jsonrpcCode: -32007,
    retryable: false,
    clientAction: 'Use the public agent card; do not retry.',
    specSection: A2A,
  },
  EXTENSION_SUPPORT_REQUIRED: {
    code: 'EXTENSION_SUPPORT_REQUIRED',
    protocol: 'a2a',
    errorName: 'ExtensionSupportRequiredError',
    meaning: 'The request did not activate the required AAP extension via the A2A-Extensions header.',
    jsonrpcCode: -32008,
    retryable: false,
    clientAction: 'Resend with the named URI in the A2A-Extensions header, only if the client implements that AAP version.',
    specSection: `${AAP_A2A}; "The activation error MUST carry recovery instructions"`,
  },
  VERSION_NOT_SUPPORTED: {
    code: 'VERSION_NOT_SUPPORTED',
    protocol: 'a2a',
    errorName: 'VersionNotSupportedError',
    meaning: 'The A2A-Version header names a Major.Minor the interface does not serve (absent or empty reads as 0.3).',
    jsonrpcCode: -32009,
    retryable: false,
    clientAction: 'Fix the request: send the A2A-Version header the agent serves (1.0).',
    specSection: AAP_A2A,
  },
} satisfies Record<A2AReason, A2AErrorInfo>);

/**
 * The code `parseResponse` gives a skill failure hidden as a failed task inside a successful
 * result (form `task-failed`). Not an A2A error code: there is no JSON-RPC code.
 */
export const TASK_FAILED_INFO: CodeInfo = Object.freeze({
  code: 'TASK_FAILED',
  protocol: 'a2a',
  meaning: 'A JSON-RPC success whose task state is failed: a skill failure without a typed aap.error payload.',
  jsonrpcCode: null,
  retryable: false,
  clientAction: 'Surface to the operator: the dealer hid a failure as a failed task; retryability is unknown.',
  specSection: 'AAP "Errors" page, "What dealer agents MUST and MUST NOT do" (skill errors MUST use aap.error)',
});

/**
 * A task the agent rejected (`TASK_STATE_REJECTED`, A2A 0.3 `rejected`) in a JSON-RPC success:
 * the call failed like a failed task does, so it is an error with its own code.
 */
export const TASK_REJECTED_INFO: CodeInfo = Object.freeze({
  code: 'TASK_REJECTED',
  protocol: 'a2a',
  meaning: 'A JSON-RPC success whose task state is rejected: the agent refused the request without a typed aap.error payload.',
  jsonrpcCode: null,
  retryable: false,
  clientAction: 'Surface to the operator: the dealer rejected the task without saying why; do not retry as is.',
  specSection: 'AAP "Errors" page, "What dealer agents MUST and MUST NOT do" (skill errors MUST use aap.error)',
});

/** Type guard: `reason` is a key of `A2A_ERRORS`. */
export function isA2AReason(reason: unknown): reason is A2AReason {
  return typeof reason === 'string' && Object.hasOwn(A2A_ERRORS, reason);
}

/** ErrorInfo `domain` of A2A protocol errors. */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
/** ProtoJSON `@type` of google.rpc.ErrorInfo. */
export const ERROR_INFO_TYPE_URL = 'type.googleapis.com/google.rpc.ErrorInfo';
/** ProtoJSON `@type` of google.rpc.BadRequest. */
export const BAD_REQUEST_TYPE_URL = 'type.googleapis.com/google.rpc.BadRequest';
/** The header a client uses to activate extensions (A2A §3.3.4). */
export const A2A_EXTENSIONS_HEADER = 'A2A-Extensions';
/** The header a client uses to name the A2A protocol version it speaks (A2A §3.6.2); empty reads as 0.3. */
export const A2A_VERSION_HEADER = 'A2A-Version';
/** The A2A version AAP profiles and the agents aap-triage instruments serve (Major.Minor). */
export const A2A_SERVED_VERSION = '1.0';
/** What an absent or empty `A2A-Version` header reads as (A2A §3.6.2). */
export const A2A_VERSION_WHEN_ABSENT = '0.3';
