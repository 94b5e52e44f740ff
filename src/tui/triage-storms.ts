import { findStorms, type StormEpisode } from '../triage/storms.js';
import type { Db } from '../triage/rows.js';
import type { TuiSource } from './source.js';
import type { StormView } from './types.js';
import { formatClient, type ClientLabels } from '../triage/clients.js';
import { labelsOf } from './labels.js';
import { formatClock } from './utils/format.js';

/** The Storms-view model of an episode: retries per minute as the sparkline series. */
export function toStormView(e: StormEpisode, labels?: ClientLabels): StormView {
  return {
    id: e.id,
    cause: e.cause,
    start: e.start,
    end: e.end,
    client: e.client,
    client_shown: formatClient(e.client, labels),
    skills: e.skills,
    codes: e.codes.map((c) => c.code),
    requests: e.requests,
    retries: e.retries,
    ratio: e.retryRatio,
    flags: e.flags,
    series: e.series.map((p) => p.retries),
  };
}

/**
 * The storm half of the data source: episodes (`findStorms`) and the drill-down into an
 * episode's errors, expressed in the query language (client and skills) plus the episode's
 * window, so the Errors view shows exactly what `aap-triage search` would.
 */
export function stormParts(db: Db): Pick<TuiSource, 'storms' | 'stormScope'> {
  return {
    async storms(window) {
      const labels = await labelsOf(db);
      return (await findStorms(db, window)).map((e) => toStormView(e, labels));
    },
    stormScope(storm) {
      const terms: string[] = [];
      // An episode of callers without a credential has client '' (stored NULL), which the
      // query language cannot name; its skills and minutes still narrow it down.
      if (storm.client !== '') terms.push(`client:${storm.client}`);
      if (storm.skills.length > 0 && storm.skills.every((s) => s !== '')) terms.push(`skill:${storm.skills.map(quote).join(',')}`);
      return {
        query: terms.join(' '),
        window: { since: new Date(storm.start).toISOString(), until: new Date(storm.end).toISOString() },
        label: `storm ${storm.client_shown} ${formatClock(storm.start)}–${formatClock(storm.end)} UTC`,
      };
    },
  };
}

function quote(v: string): string {
  return /[\s",]/.test(v) ? `"${v.replace(/"/g, '')}"` : v;
}
