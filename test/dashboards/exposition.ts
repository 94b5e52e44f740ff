/**
 * A small reader for the Prometheus text exposition format (0.0.4) that
 * `@opentelemetry/exporter-prometheus` serves: `# TYPE` lines and samples with their label
 * names and values. Enough to compare names and label sets; not a general parser (it assumes one
 * sample per line and no `}` inside label values, which holds for our labels).
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family: its `# TYPE` and the samples under it. */
export interface Family {
  name: string;
  type: string;
  samples: Sample[];
}

function parseLabels(body: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const m of body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
    labels[m[1] ?? ''] = (m[2] ?? '').replace(/\\(.)/g, (_s, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

/** Parses an exposition text into families keyed by family name (the `# TYPE` name). */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: Family | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name = '', type = ''] = line.split(' ');
      current = { name, type, samples: [] };
      families.set(name, current);
      continue;
    }
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m || !current) throw new Error(`unexpected exposition line: ${line}`);
    current.samples.push({ name: m[1] ?? '', labels: parseLabels(m[2] ?? ''), value: Number(m[3]) });
  }
  return families;
}

/** Merges several scrapes (one per service) into one family map; samples are concatenated. */
export function mergeExpositions(texts: Iterable<string>): Map<string, Family> {
  const out = new Map<string, Family>();
  for (const text of texts) {
    for (const [name, fam] of parseExposition(text)) {
      const have = out.get(name);
      if (!have) out.set(name, { ...fam, samples: [...fam.samples] });
      else {
        if (have.type !== fam.type) throw new Error(`family ${name} is ${have.type} in one scrape and ${fam.type} in another`);
        have.samples.push(...fam.samples);
      }
    }
  }
  return out;
}
