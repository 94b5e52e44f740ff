/**
 * Reads an example's README as a test script (issue 18): each ```sh block that runs `curl`,
 * followed by an ```http block (status line, blank line, JSON body), is one request and its
 * documented answer; each ```sh block that runs `./node_modules/.bin/aap-triage` (never npx: the package is not on the registry), followed by a ```text block,
 * is a command and lines its output must contain. `…` in a documented value stands for what
 * differs per run. Pure functions.
 */

/** A documented request: the shell command and the answer the README shows for it. */
export interface CurlCase {
  /** 1-based position among the README's curl cases ("answer N"). */
  n: number;
  command: string;
  status: string;
  body: unknown;
}

/** A documented command and the output lines the README shows for it. */
export interface CommandCase {
  command: string;
  lines: string[];
}

/** The fenced blocks of a Markdown text, in order. */
export function fencedBlocks(markdown: string): { lang: string; text: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? '', text: m[2] ?? '' }));
}

/** The README's curl cases and aap-triage commands; throws when a curl has no answer block. */
export function parseReadme(markdown: string): { curls: CurlCase[]; commands: CommandCase[] } {
  const blocks = fencedBlocks(markdown);
  const curls: CurlCase[] = [];
  const commands: CommandCase[] = [];
  blocks.forEach((b, i) => {
    if (b.lang !== 'sh') return;
    const next = blocks[i + 1];
    if (/^curl /.test(b.text)) {
      if (next?.lang !== 'http') throw new Error(`curl without an http answer block: ${b.text.slice(0, 80)}`);
      const [head = '', ...rest] = next.text.split('\n\n');
      curls.push({ n: curls.length + 1, command: b.text.trim(), status: head.trim(), body: JSON.parse(rest.join('\n\n')) as unknown });
    } else if (/^\.\/node_modules\/\.bin\/aap-triage /.test(b.text) && next?.lang === 'text') {
      commands.push({ command: b.text.trim(), lines: next.text.split('\n').filter((l) => l.trim() !== '') });
    }
  });
  return { curls, commands };
}

/** A documented string with `…` as a glob (`"err_…"`, `"…"`), as an anchored RegExp. */
function glob(documented: string): RegExp {
  return new RegExp(`^${documented.split('…').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+?')}$`, 's');
}

/**
 * Differences between an actual JSON value and the documented one, as `path: why` lines (empty
 * when they agree). Objects must have the same keys, arrays the same length; a documented `"…"`
 * matches any value, and a string containing `…` matches strings of that shape.
 */
export function jsonDifferences(actual: unknown, documented: unknown, path = '$'): string[] {
  if (documented === '…') return actual === undefined ? [`${path}: missing`] : [];
  if (typeof documented === 'string' && documented.includes('…')) {
    return typeof actual === 'string' && glob(documented).test(actual) ? [] : [`${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(documented)}`];
  }
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual) || actual.length !== documented.length) return [`${path}: ${JSON.stringify(actual)} is not an array of ${documented.length}`];
    return documented.flatMap((d, i) => jsonDifferences(actual[i], d, `${path}[${i}]`));
  }
  if (documented !== null && typeof documented === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: ${JSON.stringify(actual)} is not an object`];
    const a = actual as Record<string, unknown>;
    const d = documented as Record<string, unknown>;
    const keys = new Set([...Object.keys(a), ...Object.keys(d)]);
    return [...keys].flatMap((k) =>
      !(k in d) ? [`${path}.${k}: not documented`] : !(k in a) ? [`${path}.${k}: missing`] : jsonDifferences(a[k], d[k], `${path}.${k}`),
    );
  }
  return Object.is(actual, documented) ? [] : [`${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(documented)}`];
}

const squeeze = (s: string): string => s.trim().replace(/\s+/g, ' ');

/**
 * Documented output lines not found, in order, in the actual output (whitespace runs count as
 * one space; `…` matches any text). Extra actual lines are allowed: the README may show an excerpt.
 */
export function missingLines(actual: string, documented: readonly string[]): string[] {
  const lines = actual.split('\n').map(squeeze);
  let at = 0;
  const missing: string[] = [];
  for (const d of documented) {
    const re = glob(squeeze(d));
    const found = lines.findIndex((l, i) => i >= at && re.test(l));
    if (found === -1) missing.push(d);
    else at = found + 1;
  }
  return missing;
}
