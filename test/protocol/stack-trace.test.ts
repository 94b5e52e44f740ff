import { describe, expect, it } from 'vitest';
import { STACK_HINT, STACK_PATTERNS } from '../../src/protocol/builders/common.js';
import { containsStackTrace, stripStackTrace } from '../../src/protocol/index.js';

// Spec (AAP errors): "Dealer agents MUST NOT leak internal stack traces in message." Frames (or
// headers) of each runtime a dealer agent is written in, as that runtime prints them; "flattened"
// ones are what a host gets by joining a stack's lines into one.
const TRACES: Record<string, string> = {
  'V8 frame on its own line': 'TypeError: boom\n    at search (/app/src/inventory.js:42:17)',
  'V8 frame, flattened onto the message': 'TypeError: boom at search (/app/src/inventory.js:42:17)',
  'V8 async file URL': 'Error: x\n    at async file:///app/server.mjs:3:9',
  'V8 node internal': 'Error: x\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
  'V8 builtin': 'Error: x\n    at Array.map (<anonymous>)',
  'V8 constructor builtin': 'Error: x\n    at new Promise (<anonymous>)',
  'V8 eval': 'Error: x\n    at eval (eval at <anonymous> (file:///app/x.mjs:3:1), <anonymous>:1:1)',
  'V8 Windows path': 'Error: x\n    at run (C:\\app\\x.js:10:5)',
  'Java 8': 'java.lang.IllegalStateException: boom\n\tat com.example.dealer.Search.run(Search.java:42)',
  'Java 9+ module': 'java.lang.IllegalStateException: boom\n\tat java.base/java.lang.Thread.run(Thread.java:833)',
  'Java 9+ class loader': '\tat app//com.example.dealer.Search.run(Search.java:42)',
  Kotlin: '\tat com.example.Dealer.search(Dealer.kt:7)',
  '.NET': '   at Dealer.Search.Run() in C:\\src\\Search.cs:line 12',
  'Python header': 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>',
  'Python frame': '  File "/srv/dealer/search.py", line 88, in find',
  'Go header': 'panic: boom\n\ngoroutine 1 [running]:\nmain.main()',
  'Go frame location': 'main.search(0xc000012345)\n\t/app/dealer/main.go:12 +0x1d',
  'Go inlined frame location': 'main.search(...)\n\t/app/dealer/main.go:12',
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
    expect(stripStackTrace(TRACES['Java 8'] as string, 'Error')).toBe('java.lang.IllegalStateException: boom');
    expect(stripStackTrace(`${TRACES['Java 8']}\n\tat java.base/java.lang.Thread.run(Thread.java:833)`, 'Error')).toBe('java.lang.IllegalStateException: boom');
    expect(stripStackTrace('Error: x\n    at Array.map (<anonymous>)', 'Error')).toBe('Error: x');
    // Frame locations go; a Go function line or a Python source line alone is not recognised as a frame.
    expect(stripStackTrace(TRACES['Go frame location'] as string, 'Error')).not.toMatch(/main\.go/);
    expect(stripStackTrace(TRACES['Go inlined frame location'] as string, 'Error')).not.toMatch(/main\.go/);
    expect(stripStackTrace('    at search (/app/src/inventory.js:42:17)', 'Internal error')).toBe('Internal error');
    for (const text of PLAIN) expect(stripStackTrace(text, 'Error')).toBe(text);
  });
  it('stripStackTrace trims a message without frames and falls back when it is blank', () => {
    expect(stripStackTrace('  No vehicle matches.\r\n', 'Error')).toBe('No vehicle matches.');
    expect(stripStackTrace('Line one\r\nline two', 'Error')).toBe('Line one\r\nline two');
    expect(stripStackTrace(' \r\n\t ', 'Internal error')).toBe('Internal error');
    expect(stripStackTrace('', 'Internal error')).toBe('Internal error');
    expect(stripStackTrace(42, 'Internal error')).toBe('Internal error');
  });
});

describe('STACK_HINT', () => {
  // The hint is tested before the patterns: a pattern that matched text without it would be dead.
  // Generated text: the frames above mutated at random (a span cut out, a frame-like piece put
  // in), seeded so the run is repeatable. Many mutants still match a pattern, at its edges.
  const PIECES = [' ', '\n', '\t', 'at ', 'async ', 'new ', '(', ')', '<anonymous>', 'native', '/', ':', '7', ':line 3', 'line 9', '.go', '.java', ' +0x1f', 'goroutine 2', 'x'];
  let seed = 14;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  const traces = Object.values(TRACES);
  it('matches every text any frame pattern matches', () => {
    let framed = 0;
    for (let n = 0; n < 40_000; n++) {
      let text = traces[next(traces.length)] as string;
      for (let k = 1 + next(4); k > 0; k--) {
        const at = next(text.length + 1);
        const cut = next(6);
        text = text.slice(0, at) + (next(2) === 0 ? (PIECES[next(PIECES.length)] as string) : '') + text.slice(at + cut);
      }
      if (!STACK_PATTERNS.some((re) => re.test(text))) continue;
      framed++;
      expect(STACK_HINT.test(text), JSON.stringify(text)).toBe(true);
    }
    // The mutants do reach the patterns (a test that never gets past `continue` proves nothing).
    expect(framed).toBeGreaterThan(10_000);
  });
  it('matches every pattern-matching text made of frame pieces joined at random', () => {
    let framed = 0;
    const pieces = [...PIECES, ':line\t3', ', line\t2', ' in x.cs', 'line  4', 'goroutine 27 [', '  at ', 'Array.map', '.kt:', 'File "a.py"', ', line 2', 'Traceback (most recent call last)', ' in C:\\x.cs'];
    for (let n = 0; n < 40_000; n++) {
      let text = '';
      for (let k = 2 + next(14); k > 0; k--) text += pieces[next(pieces.length)];
      if (!STACK_PATTERNS.some((re) => re.test(text))) continue;
      framed++;
      expect(STACK_HINT.test(text), JSON.stringify(text)).toBe(true);
    }
    expect(framed).toBeGreaterThan(1000);
  });
  it('runs in linear time on long runs of line breaks and frame starts (hostile text)', () => {
    // Each once took seconds to minutes (quadratic backtracking); linear, each is a few ms.
    const hostile = ['\n'.repeat(100_000) + ':1', ' \n'.repeat(50_000) + ':1', '\nat '.repeat(25_000) + ':1', '\t/a.go'.repeat(16_000) + ':1'];
    const started = performance.now();
    for (const text of hostile) {
      containsStackTrace(text);
      stripStackTrace(text, 'Error');
    }
    // A bound far above linear time (tens of ms) and far below the quadratic one (minutes).
    expect(performance.now() - started).toBeLessThan(3000);
  });
  it('matches each runtime frame above', () => {
    for (const text of Object.values(TRACES)) expect(STACK_HINT.test(text), text).toBe(true);
  });
});
