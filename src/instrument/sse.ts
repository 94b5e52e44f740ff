/**
 * Incremental Server-Sent Events reader (WHATWG HTML "Parsing an event stream"): lines end with
 * LF, CR or CRLF; an empty line dispatches the event; consecutive `data:` lines join with LF, so
 * a frame split over several `data:` lines is one event. Only `event` and `data` fields matter.
 */
import { StringDecoder } from 'node:string_decoder';

export interface SseEvent {
  event: string;
  data: string;
}

export class SseReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private data: string[] = [];
  private dataSize = 0;
  private event = '';
  private skipping = false;

  /** `maxEventBytes` caps one event's data (characters); a larger event is skipped. */
  constructor(
    private readonly onEvent: (e: SseEvent) => void,
    private readonly maxEventBytes: number,
  ) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    let start = 0;
    for (;;) {
      const lf = this.pending.indexOf('\n', start);
      const cr = this.pending.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR at the very end may be the first half of CRLF: wait for more.
        if (cr === this.pending.length - 1) break;
        end = cr;
        next = this.pending[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else break;
      this.line(this.pending.slice(start, end));
      start = next;
    }
    this.pending = this.pending.slice(start);
    if (this.pending.length > this.maxEventBytes) {
      // One unterminated line larger than the cap: drop it and the event it belongs to.
      this.pending = '';
      this.skipping = true;
    }
  }

  /** End of stream: a final event without its blank line is discarded, as the standard says. */
  end(): void {
    this.pending = '';
    this.data = [];
  }

  private line(line: string): void {
    if (line === '') {
      if (!this.skipping && this.data.length > 0) {
        const e = { event: this.event || 'message', data: this.data.join('\n') };
        this.onEvent(e);
      }
      this.data = [];
      this.dataSize = 0;
      this.event = '';
      this.skipping = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      if (this.skipping) return;
      this.dataSize += value.length + 1;
      if (this.dataSize > this.maxEventBytes) {
        this.skipping = true;
        this.data = [];
        return;
      }
      this.data.push(value);
    } else if (field === 'event') {
      this.event = value;
    }
  }
}
