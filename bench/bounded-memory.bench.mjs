#!/usr/bin/env node
// Cost per call of the instrumentation's two large bounded memories once they are full (issue
// 14): the retry tracker (50 000 keys, least recently seen evicted) and the reused-error_id memory
// (50 000 ids, oldest forgotten). Each round feeds 50 000 new keys; from the second round on every
// call evicts. Before issue 14's third round both read their oldest entry with `keys().next()` on
// every call, which walks over the deleted slots in front of it: 12–46 µs per record and
// 7–24 µs per error id by round 2. Wall time of a tight loop, ns per call, one line per round.
//   npm run build && node bench/bounded-memory.bench.mjs [rounds=6]
import { countArgs } from './args.mjs';
import { ErrorIdMemory } from '../dist/instrument/exchange/error-id-memory.js';
import { RetryTracker } from '../dist/instrument/exchange/retry-tracker.js';

const USAGE = 'usage: node bench/bounded-memory.bench.mjs [rounds=6]';
const [ROUNDS] = countArgs(process.argv.slice(2), 'bounded-memory bench', USAGE, [{ name: 'rounds', default: 6, max: 9999 }]);
const N = 50_000;
const tracker = new RetryTracker({ maxKeys: N });
const ids = new ErrorIdMemory(N);
let key = 0;
let now = 0;
let id = 0;
const result = { at: 0, ok: false, retryable: true, retryAfterMs: null };
console.log(`# bounded memories, ${N} entries each, ${N} new keys per round (node ${process.version})`);
for (let r = 1; r <= ROUNDS; r++) {
  let t = process.hrtime.bigint();
  // 70 000 distinct keys in turn against a 50 000-key bound: after round 1 every record is a key
  // no longer held, so every one inserts and evicts.
  for (let i = 0; i < N; i++) tracker.record(key++ % 70_000, ++now, null, result);
  const trackerNs = Number(process.hrtime.bigint() - t) / N;
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) ids.seen(`err_${(id++).toString(16).padStart(32, '0')}`);
  const idsNs = Number(process.hrtime.bigint() - t) / N;
  console.log(`round ${r}: retry tracker ${trackerNs.toFixed(0)} ns per record (${tracker.size} keys); error ids ${idsNs.toFixed(0)} ns per error`);
}
