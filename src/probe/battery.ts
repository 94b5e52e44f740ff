/**
 * The battery: every case, per family, in report order (the family's own cases, then the
 * cross-cutting ones). docs/probe.md lists the same cases; a test compares the two.
 */
import { AAP_CASES } from './cases/aap.js';
import { CROSS_CUTTING_CASES } from './cases/common.js';
import { DMC12_CASES } from './cases/dmc12.js';
import type { ProbeCase, ProbeFamily } from './types.js';

/** The cases run against an agent of `family`. */
export function batteryFor(family: ProbeFamily): readonly ProbeCase[] {
  const own = family === 'aap' ? AAP_CASES : DMC12_CASES;
  return [...own, ...CROSS_CUTTING_CASES.filter((c) => c.family === 'all' || c.family === family)];
}

/** Every case of both batteries, each once (for docs and `--dry-run` without `--protocol`). */
export const ALL_CASES: readonly ProbeCase[] = Object.freeze([...AAP_CASES, ...DMC12_CASES, ...CROSS_CUTTING_CASES]);
