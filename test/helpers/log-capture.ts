/** A pino logger writing JSON lines into memory, parsed on demand (pino's test/helper.js sink). */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from 'pino';

export interface CapturedLog {
  logger: Logger;
  raw: string[];
  lines(): Record<string, unknown>[];
}

export function captureLog(): CapturedLog {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw.push(chunk.toString('utf8'));
      cb();
    },
  });
  const logger = pino({ level: 'debug' }, stream);
  return {
    logger,
    raw,
    lines: () => raw.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
