/**
 * The actions of `issues resolve|mute|reopen <key>` (issue 29; defined in
 * src/cli/commands/issue-states.ts): the operator's issue states, stored with who set them and
 * when (src/audit/issue-states.ts); what they mean for later rows is src/triage/releases.ts.
 */
import type { Command } from 'commander';
import {
  describeIssueState,
  isIssueKeyPrefix,
  issueKeysWithPrefix,
  issueStateFor,
  operatorName,
  parseTimeSpec,
  resolveTimeSpec,
  type IssueAction,
} from '../../triage/index.js';
import { setIssueStateInStore } from '../../triage/store.js';
import { CliError, EXIT, toCliError, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';

/** Runs one action: finds the issue by key or prefix, builds the row, writes it on its own connection, prints it. */
async function apply(ctx: CommandContext, cmd: Command, value: string, action: (g: Record<string, unknown>) => IssueAction): Promise<void> {
  const g = ctx.globals(cmd);
  const key = value.toLowerCase();
  if (!isIssueKeyPrefix(key)) throw new CliError(`'${value}' is not an issue key`, 'give the KEY column of `issues` (16 hex digits, or its first 6+)', EXIT.USAGE);
  let by: string | null;
  try {
    by = operatorName(ctx.io.env, g['by'] === undefined ? undefined : String(g['by']));
  } catch (error) {
    throw new CliError(`--by / AAP_TRIAGE_OPERATOR: ${(error as Error).message}`, 'give a short printable name, e.g. --by alice', EXIT.USAGE);
  }
  if (by === null) throw new CliError('no operator name', 'pass --by <name> or set AAP_TRIAGE_OPERATOR (or USER)', EXIT.USAGE);
  const requested = action(g);
  const db = await openDb(ctx, cmd);
  const keys = await issueKeysWithPrefix(db, key, 5);
  if (keys.length === 0) throw new CliError(`no issue with key ${value} in this store`, `see ${ctx.commandLine(cmd, 'issues')}`, EXIT.USAGE);
  if (keys.length > 1) throw new CliError(`'${value}' starts ${keys.length === 5 ? '5 or more' : keys.length} issue keys (${keys.join(', ')})`, 'give more digits of the one you mean', EXIT.USAGE);
  let row;
  try {
    row = await issueStateFor(db, keys[0]!, requested, by, ctx.now());
  } catch (error) {
    if (error instanceof RangeError) throw new CliError(error.message, null, EXIT.USAGE);
    throw error;
  }
  const path = ctx.storePath(cmd);
  await ctx.close(); // the state is written on a read-write connection of its own
  try {
    row = await setIssueStateInStore(path, row);
  } catch (error) {
    throw toCliError(error);
  }
  if (g.json) ctx.json(row);
  else ctx.out(`issue ${row.issue_key}: ${describeIssueState(row)}`);
}

/** A positive integer flag, or a one-line usage error. */
function count(flag: string, raw: unknown): number | null {
  if (raw === undefined) return null;
  const text = String(raw);
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new CliError(`${flag} must be a positive integer, got '${text}'`, `e.g. ${flag} 100`, EXIT.USAGE);
  return Number(text);
}

/** The subcommands of `issues`; a first query word one or two letters off one of them is a typo, not a search. */
const STATE_VERBS = ['resolve', 'mute', 'reopen'] as const;
/** Words an operator may reach for that mean one of them. */
const VERB_SYNONYMS: Readonly<Record<string, (typeof STATE_VERBS)[number]>> = { unmute: 'reopen', unresolve: 'reopen', open: 'reopen', close: 'resolve' };

/** Edit distance of two short words (insert, delete, substitute). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * Refuses, as a usage error, a first query word of `issues` that reads as a mistyped subcommand
 * (`reslove`, `unmute`) or as an issue key (which `search issue:<KEY>` lists): both would
 * otherwise search for the word and print "no issues" with exit 0, which looks like success.
 * @throws {CliError} exit 2, with the command meant.
 */
export function checkIssuesFirstWord(word: string | undefined, ctx: CommandContext, cmd: Command): void {
  if (word === undefined) return;
  if (/^[0-9a-f]{16}$/i.test(word)) {
    throw new CliError(`'${word}' is an issue key, not a query word`, `list its errors with ${ctx.commandLine(cmd, `search issue:${word.toLowerCase()}`)}`, EXIT.USAGE);
  }
  if (!/^[a-z]{3,12}$/.test(word)) return;
  const meant = VERB_SYNONYMS[word] ?? STATE_VERBS.find((v) => distance(word, v) <= 2);
  if (meant) throw new CliError(`unknown command 'issues ${word}'`, `did you mean 'issues ${meant} <KEY>'? (see ${ctx.commandLine(cmd, 'issues --help', { window: false })})`, EXIT.USAGE);
}

/** `issues resolve <key>`: resolved now, `--in-next-release`, or `--in <version>`. */
export async function resolve(ctx: CommandContext, value: string, cmd: Command): Promise<void> {
  await apply(ctx, cmd, value, (g) => {
    if (g['inNextRelease'] === true && g['in'] !== undefined) throw new CliError('--in and --in-next-release both given', 'keep one', EXIT.USAGE);
    if (g['in'] !== undefined) return { kind: 'resolve', in: 'version', version: String(g['in']) };
    return g['inNextRelease'] === true ? { kind: 'resolve', in: 'next_release' } : { kind: 'resolve', in: 'now' };
  });
}

/** `issues mute <key>`: muted forever, or until `--for` or `--count` ends it. */
export async function mute(ctx: CommandContext, value: string, cmd: Command): Promise<void> {
  await apply(ctx, cmd, value, (g) => {
    let until: number | null = null;
    if (g['for'] !== undefined) {
      const spec = parseTimeSpec(String(g['for']));
      if (!spec) throw new CliError(`--for '${String(g['for'])}' is not a duration or an RFC 3339 time`, 'use e.g. 2h, 7d or 2026-12-03T09:00:00Z', EXIT.USAGE);
      until = spec.kind === 'duration' ? ctx.now() + spec.ms : resolveTimeSpec(spec, ctx.now());
    }
    return { kind: 'mute', until, count: count('--count', g['count']) };
  });
}

/** `issues reopen <key>`: open again, triaged by time as before. */
export async function reopen(ctx: CommandContext, value: string, cmd: Command): Promise<void> {
  await apply(ctx, cmd, value, () => ({ kind: 'reopen' }));
}
