import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../src/audit/schema.js';

describe('package', () => {
  it('has a schema version', () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
  });
});
