import { resolve } from 'node:path';
import type { Command } from 'commander';
import { EXTENSION_URI_ENV, TRACE_URL_ENV, buildIncidentEml, extensionUriProblem, draftIncident, parseQuery, parseStormId, traceUrlProblem, type DraftSource } from '../../triage/index.js';
import { DEFAULT_WINDOW_MS, CliError, EXIT, type CommandContext } from '../context.js';
import { openDb } from '../open-db.js';
import { DEFAULT_FROM } from '../../incident/address.js';
import { pseudonymizerFor } from '../query-args.js';
import { writeOutFile } from '../../incident/write-out.js';
import { AddressError, formatMailbox, parseOneAddress } from '../../triage/index.js';

const FORMATS = ['text', 'md', 'eml'] as const;
/** `draft` (src/cli/commands/draft.ts): the incident email for a storm, a query or error ids, as text, Markdown or .eml; exit 1 if nothing matches. */
export async function draft(ctx: CommandContext, ids: string[], cmd: Command): Promise<void> {
  const g = ctx.globals(cmd);
  const format = String(g['format']);
  if (!(FORMATS as readonly string[]).includes(format)) throw new CliError(`--format must be text, md or eml, got '${format}'`, null, EXIT.USAGE);
  const nextUpdate = Number(g['nextUpdate']);
  if (!Number.isInteger(nextUpdate) || nextUpdate < 1) throw new CliError(`--next-update must be a positive number of minutes, got '${String(g['nextUpdate'])}'`, null, EXIT.USAGE);
  const sources = [g['storm'] !== undefined, g['query'] !== undefined, ids.length > 0].filter(Boolean).length;
  if (sources !== 1) throw new CliError('draft needs exactly one of --storm <id>, --query <q> or error ids', `e.g. ${ctx.commandLine(cmd, 'draft --storm storm-20261130T0142Z-1a2b3c4d')}`, EXIT.USAGE);
  const to = (g['to'] as string[]).map((value) => {
    try {
      return formatMailbox(parseOneAddress(value));
    } catch (error) {
      if (error instanceof AddressError) throw new CliError(`--to ${error.message}`, 'e.g. --to partner-oncall@example.com --to second@example.com', EXIT.USAGE);
      throw error;
    }
  });
  const from = g['from'] === undefined ? DEFAULT_FROM : String(g['from']);
  try {
    parseOneAddress(from);
  } catch (error) {
    if (error instanceof AddressError) throw new CliError(`--from ${error.message}`, 'e.g. --from "Dealer On-call <oncall@dealer.example.com>"', EXIT.USAGE);
    throw error;
  }
  // --extension-uri wins; else AAP_TRIAGE_EXTENSION_URI (the TUI reads the same variable).
  const [extensionUri, uriSource] = g['extensionUri'] !== undefined ? [String(g['extensionUri']), '--extension-uri'] : [ctx.io.env[EXTENSION_URI_ENV] || undefined, EXTENSION_URI_ENV];
  const uriProblem = extensionUri === undefined ? null : extensionUriProblem(extensionUri, uriSource);
  if (uriProblem) throw new CliError(uriProblem, 'give the URI from your agent card', EXIT.USAGE);
  let source: DraftSource;
  let pseudonymizer = null;
  if (g['storm'] !== undefined) {
    const id = String(g['storm']);
    if (!parseStormId(id)) throw new CliError(`'${id}' is not a storm id`, `storm ids look like storm-20261130T0142Z-1a2b3c4d (see ${ctx.commandLine(cmd, 'storms')})`, EXIT.USAGE);
    source = { kind: 'storm', id };
  } else if (g['query'] !== undefined) {
    const query = parseQuery(String(g['query']));
    pseudonymizer = pseudonymizerFor(ctx, cmd, query);
    source = { kind: 'query', query, window: ctx.window(cmd, DEFAULT_WINDOW_MS) };
  } else {
    const bad = ids.find((id) => !/^[A-Za-z0-9_.:-]{1,128}$/.test(id));
    if (bad !== undefined) throw new CliError(`'${bad}' is not an error id`, 'error ids look like err_ followed by 32 hex digits', EXIT.USAGE);
    source = { kind: 'errors', ids };
  }
  const traceUrl = ctx.io.env[TRACE_URL_ENV] || undefined;
  const traceProblem = traceUrl ? traceUrlProblem(traceUrl) : null;
  if (traceProblem) throw new CliError(traceProblem, null, EXIT.USAGE);
  const draft = await draftIncident(await openDb(ctx, cmd), source, {
    now: ctx.now(),
    pseudonymizer,
    nextUpdateMinutes: nextUpdate,
    ...(extensionUri ? { extensionUri } : {}),
    ...(traceUrl ? { traceUrl } : {}),
  });
  if (!draft) {
    ctx.note(
      source.kind === 'storm'
        ? `aap-triage: no storm ${source.id} in the store — list current ones with ${ctx.commandLine(cmd, 'storms --since 7d', { window: false })}`
        : 'aap-triage: no errors match — nothing to draft; check the query, ids or --since',
    );
    ctx.exitCode = EXIT.NOT_FOUND;
    return;
  }
  // A storm's draft goes to its partner's contact (`aap-triage clients label … --contact`) unless --to says otherwise.
  const recipients = to.length ? to : draft.facts.recipient ? [draft.facts.recipient] : [];
  let content: string | Buffer;
  if (format === 'eml') {
    if (recipients.length === 0) {
      throw new CliError('--format eml needs --to <address> (the client has no label contact)', `e.g. --to partner-oncall@example.com, or ${ctx.commandLine(cmd, 'clients label <CLIENT> "<name>" --contact <email>', { window: false })}`, EXIT.USAGE);
    }
    try {
      content = await buildIncidentEml(draft, { from, to: recipients, date: new Date(ctx.now()) });
    } catch (error) {
      throw new CliError(`cannot build the .eml (${(error as Error).message.split('\n')[0]})`, 'check --to and --from', EXIT.USAGE);
    }
  } else content = format === 'md' ? draft.markdown : draft.text;
  if (g['out'] !== undefined) {
    const file = resolve(String(g['out']));
    try {
      writeOutFile(file, content, g['force'] === true);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'EEXIST') throw new CliError(`${file} already exists; not overwritten`, 'pass --force to replace it, or choose another --out', EXIT.USAGE);
      throw new CliError(`cannot write ${file} (${code})`, 'check the folder exists and is writable', EXIT.ENV);
    }
    if (g.json) ctx.json({ file, format, subject: draft.subject });
    else ctx.out(`wrote ${file} (${format}): ${draft.subject}`);
    return;
  }
  if (g.json) {
    ctx.json({ subject: draft.subject, to: recipients, text: draft.text, markdown: draft.markdown, facts: draft.facts });
    return;
  }
  ctx.io.stdout.write(content);
}
