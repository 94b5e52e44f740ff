/**
 * The PII canary (canary.test.ts) run again with the GenAI conventions off, the default a dealer
 * runs with: the same requests, every canary again, and no a2a.*, mcp.* or gen_ai.* attribute.
 */
process.env['AAP_TRIAGE_CANARY_CONVENTIONS'] = 'default';
try {
  await import('./canary.test.js');
} finally {
  delete process.env['AAP_TRIAGE_CANARY_CONVENTIONS'];
}
