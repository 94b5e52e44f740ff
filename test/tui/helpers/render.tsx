/**
 * The one harness of the view tests: the real App over the real triage functions on a seeded
 * SQLite file, rendered by ink-testing-library at a fixed size, with a fixed clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { openAuditReader, sqliteReader } from '../../../src/audit/index.js';
import { App, type AppProps } from '../../../src/tui/App.js';
import type { TuiSource } from '../../../src/tui/source.js';
import { createTriageSource, type TriageSourceOptions } from '../../../src/tui/triage-source.js';
import { seedTuiDb, type SeedFacts } from './seed.js';

/** A seeded database in its own temp folder. */
export interface Seeded {
  readonly dir: string;
  readonly path: string;
  readonly now: number;
  readonly facts: SeedFacts;
  readonly cleanup: () => void;
}

/** Seeds a fresh database in a new temp folder (drafts are written there too). */
export function seeded(now = Date.UTC(2026, 10, 30, 2, 0, 30)): Seeded {
  const dir = mkdtempSync(join(tmpdir(), 'aap-tui-'));
  const path = join(dir, 'audit.db');
  const facts = seedTuiDb(path, now);
  return { dir, path, now, facts, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Sources of the Apps rendered now: `settle` waits for their reads. */
const live = new Set<{ pending(): number }>();

/**
 * Lets ink read the input and re-render (input and renders are asynchronous), and waits for the
 * store reads in flight (async on both stores) and the frame they bring.
 */
export const settle = async (ms = 30) => {
  await sleep(ms);
  for (let waited = 0; waited < 5000 && [...live].some((s) => s.pending() > 0); waited += 10) await sleep(10);
  await sleep(ms);
};

/** What `renderApp` returns. */
export interface RenderedApp {
  /** Types each key (an escape sequence counts as one key) and waits for ink to redraw. */
  readonly press: (...keys: string[]) => Promise<void>;
  /** The last frame written, without colours. */
  readonly frame: () => string;
  /** Every frame written, oldest first. */
  readonly frames: () => readonly string[];
  readonly close: () => void;
}

/** The source with a count of the reads in flight, so `press` can wait for their frames. */
function tracked(source: TuiSource): TuiSource & { pending(): number } {
  let inFlight = 0;
  const wrap =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      inFlight += 1;
      return fn(...args).finally(() => {
        inFlight -= 1;
      });
    };
  return {
    ...source,
    search: wrap(source.search),
    histogram: wrap(source.histogram),
    detail: wrap(source.detail),
    storms: wrap(source.storms),
    draft: wrap(source.draft),
    gaps: wrap(source.gaps),
    eml: wrap(source.eml),
    ...(source.setIssueState ? { setIssueState: wrap(source.setIssueState) } : {}),
    pending: () => inFlight,
  };
}

/** Renders the App on `s` at `columns` × `rows`; `press` types keys and waits for the frame. */
export function renderApp(s: Seeded, props: Partial<AppProps> & { columns?: number; rows?: number; sourceOptions?: TriageSourceOptions } = {}): RenderedApp {
  const db = openAuditReader(s.path);
  const { columns = 120, rows = 30, sourceOptions, ...rest } = props;
  const source = tracked(createTriageSource(sqliteReader(db), sourceOptions));
  live.add(source);
  const ui = render(
    <App
      source={source}
      dbLabel="audit.db"
      refreshMs={0}
      clock={() => s.now}
      draftDir={s.dir}
      size={{ columns, rows }}
      view="errors"
      {...rest}
    />,
  );
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      // Wait until the frames stop changing: a chunk of text is handed over one key per commit.
      ui.stdin.write(k);
      let count = ui.frames.length;
      let quiet = 0;
      for (let waited = 0; quiet < 80 && waited < 5000; waited += 10) {
        await sleep(10);
        // Reads are async: quiet only counts once no read is in flight.
        if (ui.frames.length === count && source.pending() === 0) quiet += 10;
        else {
          count = ui.frames.length;
          quiet = 0;
        }
      }
    }
  };
  const frame = () => stripVTControlCharacters(ui.lastFrame() ?? '');
  return {
    press,
    frames: () => ui.frames,
    frame,
    close: () => {
      live.delete(source);
      ui.unmount();
      db.close();
    },
  };
}

/** Key escapes. */
export const KEY = {
  enter: '\r',
  escape: '\u001b',
  tab: '\t',
  down: '\u001b[B',
  up: '\u001b[A',
  pageDown: '\u001b[6~',
  pageUp: '\u001b[5~',
  backspace: '\u007f',
} as const;
