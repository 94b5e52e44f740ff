/**
 * How long the store keeps its rows when `prune` is given no age (DESIGN §5), apart from the code
 * that deletes them (maintenance.ts): `aap-triage prune --help` shows it without loading that code
 * and the store's schema behind it (issue 31 "Start-up").
 */

/** Default retention: 90 days, in ms. */
export const DEFAULT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
