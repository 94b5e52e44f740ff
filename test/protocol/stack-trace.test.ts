import { describe, expect, it } from 'vitest';
import { containsStackTrace, stripStackTrace } from '../../src/protocol/index.js';

// Spec (AAP errors): "Dealer agents MUST NOT leak internal stack traces in message." One frame
// (or header) of each runtime a dealer agent is written in, as that runtime prints it.
const TRACES: Record<string, string> = {
  'V8 frame on its own line': 'TypeError: boom\n    at search (/app/src/inventory.js:42:17)',
  'V8 frame inline': 'TypeError: boom at search (/app/src/inventory.js:42:17)',
  'V8 async file URL': 'Error: x\n    at async file:///app/server.mjs:3:9',
  'V8 node internal': 'Error: x\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
  'V8 anonymous': 'Error: x\n    at Array.map (<anonymous>:1:2)',
  'V8 Windows path': 'Error: x\n    at run (C:\\app\\x.js:10:5)',
  Java: 'java.lang.IllegalStateException: boom\n\tat com.example.dealer.Search.run(Search.java:42)',
  Kotlin: 'at com.example.Dealer.search(Dealer.kt:7)',
  '.NET': '   at Dealer.Search.Run() in C:\\src\\Search.cs:line 12',
  'Python header': 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>',
  'Python frame': 'File "/srv/dealer/search.py", line 88, in find',
  Go: 'panic: boom\n\ngoroutine 1 [running]:\nmain.main()',
};

// Messages a dealer sends, some with the colons, digits and "at" that frames have.
const PLAIN = [
  'No vehicle matches the supplied identifiers.',
  'VIN 1HGCM82633A004352 is not in stock.',
  'The showroom opens at 10:30; try again later.',
  'Rate limited: retry in 30 s (limit 100:1 per minute).',
  'Look at the listing at https://dealer.example.com/inventory/42 for details.',
  'Line 3 of the address is missing.',
  'Activate https://autoagentprotocol.org/extensions/aap/v2 in the A2A-Extensions header before retrying this request.',
];

describe('containsStackTrace', () => {
  for (const [runtime, text] of Object.entries(TRACES)) {
    it(`finds a ${runtime} trace`, () => {
      expect(containsStackTrace(text)).toBe(true);
      expect(containsStackTrace(`Search failed. ${text}`)).toBe(true);
    });
  }
  it('clears ordinary messages, colons, digits and "at" included', () => {
    for (const text of PLAIN) expect(containsStackTrace(text)).toBe(false);
  });
  it('stripStackTrace keeps the text before the frames and falls back when nothing is left', () => {
    expect(stripStackTrace('Search failed.\n    at search (/app/src/inventory.js:42:17)', 'Error')).toBe('Search failed.');
    expect(stripStackTrace(TRACES.Java as string, 'Error')).toBe('java.lang.IllegalStateException: boom');
    expect(stripStackTrace('    at search (/app/src/inventory.js:42:17)', 'Internal error')).toBe('Internal error');
    for (const text of PLAIN) expect(stripStackTrace(text, 'Error')).toBe(text);
  });
});
