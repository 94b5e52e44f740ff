import { readFileSync, writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
// Types and defaults only: the battery, the sender and the client behind it (OpenTelemetry's API
// among them) load when a probe runs, not with every command (issue 31 "Start-up").
import { PROBE_DEFAULTS, type ProbeFamily } from '../../probe/types.js';
import { CliError, EXIT, type CommandContext, type CommandModule } from '../context.js';

/** Exit code when a mandatory case failed (or, with --strict, a recommended one): 1, as for "not found" elsewhere. */
const EXIT_CASE_FAILED = 1;

interface ProbeFlags {
  protocol?: string;
  rate?: string;
  maxRequests?: string;
  timeout?: string;
  tokenEnv?: string;
  tokenFile?: string;
  token?: string;
  rpcUrl?: string;
  dryRun?: boolean;
  junit?: string;
  strict?: boolean;
}

/** A positive number flag, or a usage error naming it. */
function positive(flag: string, raw: string | undefined, dflt: number, integer: boolean): number {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(n > 0) || (integer && !Number.isInteger(n))) {
    throw new CliError(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got '${raw}'`, null, EXIT.USAGE);
  }
  return n;
}

function httpUrl(flag: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`${flag} '${raw}' is not a URL`, 'give the agent\'s base URL, e.g. http://127.0.0.1:8080', EXIT.USAGE);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`${flag} '${raw}' is not an http(s) URL`, null, EXIT.USAGE);
  return url.href;
}

/** The bearer token: `--token-file` when given, else the environment variable (never argv). */
function readToken(flags: ProbeFlags, env: NodeJS.ProcessEnv): string | undefined {
  if (flags.token !== undefined) {
    throw new CliError(
      'the probe never takes a bearer token on the command line (shell history and ps would show it)',
      `put it in ${PROBE_DEFAULTS.tokenEnv} or in a file and pass --token-file <path>`,
      EXIT.USAGE,
    );
  }
  if (flags.tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.tokenFile, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read --token-file ${flags.tokenFile}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`, null, EXIT.USAGE);
    }
    const token = text.trim();
    if (token === '' || /\s/.test(token)) throw new CliError(`--token-file ${flags.tokenFile} must hold one token on one line`, null, EXIT.USAGE);
    return token;
  }
  const name = flags.tokenEnv ?? PROBE_DEFAULTS.tokenEnv;
  if (flags.tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new CliError(`--token-env '${name}' is not an environment variable name`, null, EXIT.USAGE);
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** `probe <url>`: the conformance battery against a live agent (docs/probe.md). */
export const probeCommand: CommandModule = {
  name: 'probe',
  register(program: Command, ctx: CommandContext) {
    program
      .command('probe')
      .description('send a fixed battery of must-fail requests to an AAP or DMC-12 agent and check every answer against the spec (exit 1 when a MUST case fails, 3 when the agent is unreachable)')
      .argument('<url>', 'the agent: base URL or agent card URL (AAP), or the JSON-RPC endpoint (DMC-12)')
      .option('--protocol <family>', 'aap | dmc12 | auto (auto: the agent card first, then tools/list)', 'auto')
      .option('--rate <n>', `most requests per second (default ${PROBE_DEFAULTS.ratePerSecond})`)
      .option('--max-requests <n>', `most requests in the whole run, discovery included (default ${PROBE_DEFAULTS.maxRequests})`)
      .option('--timeout <ms>', `per-request timeout in ms (default ${PROBE_DEFAULTS.timeoutMs})`)
      .option('--token-env <name>', `environment variable holding the bearer token (default ${PROBE_DEFAULTS.tokenEnv})`)
      .option('--token-file <path>', 'file holding the bearer token (one line); wins over --token-env')
      .addOption(new Option('--token <value>').hideHelp())
      .option('--rpc-url <url>', 'JSON-RPC URL to probe instead of the one the agent card names (needed when it is on another origin)')
      .option('--dry-run', 'print the battery (every case, its spec sentence and its requests) without sending anything')
      .option('--junit <file>', 'also write the report as JUnit XML to <file>')
      .option('--strict', 'count failed SHOULD (recommended) cases too: exit 1 and JUnit failures')
      .action(async (rawUrl: string, _opts: unknown, cmd: Command) => {
        const g = ctx.globals(cmd) as ProbeFlags & { json?: boolean };
        const url = httpUrl('<url>', rawUrl);
        const protocol = g.protocol ?? 'auto';
        if (!['aap', 'dmc12', 'auto'].includes(protocol)) throw new CliError(`--protocol must be aap, dmc12 or auto, got '${protocol}'`, null, EXIT.USAGE);
        const ratePerSecond = positive('--rate', g.rate, PROBE_DEFAULTS.ratePerSecond, false);
        if (ratePerSecond > 1000) throw new CliError(`--rate must be at most 1000, got '${g.rate}'`, null, EXIT.USAGE);
        const maxRequests = positive('--max-requests', g.maxRequests, PROBE_DEFAULTS.maxRequests, true);
        const timeoutMs = positive('--timeout', g.timeout, PROBE_DEFAULTS.timeoutMs, true);
        const rpcUrl = g.rpcUrl !== undefined ? httpUrl('--rpc-url', g.rpcUrl) : undefined;
        const token = readToken(g, ctx.io.env);
        const { ALL_CASES, ProbeTargetError, ProbeUnreachableError, batteryFor, placeholderTarget, renderBattery, renderJunit, renderText, reportJson, runProbe } = await import(
          '../../probe/index.js'
        );

        if (g.dryRun) {
          const families: ProbeFamily[] = protocol === 'auto' ? ['aap', 'dmc12'] : [protocol as ProbeFamily];
          if (g.json) {
            ctx.json({
              dry_run: true,
              batteries: families.map((f) => {
                const t = placeholderTarget(url, f);
                return {
                  family: f,
                  cases: batteryFor(f).map((c) => ({ id: c.id, level: c.level, title: c.title, spec: c.spec, safety: c.safety, answers_of: c.answersOf ?? null, cross_cutting: c.crossCutting ?? false, requests: c.requests(t) })),
                };
              }),
            });
          } else {
            ctx.out(families.map((f) => renderBattery(batteryFor(f), placeholderTarget(url, f))).join('\n'));
            ctx.note(`aap-triage: dry run — ${ALL_CASES.length} cases known, nothing was sent`);
          }
          return;
        }

        let report;
        try {
          report = await runProbe(url, { protocol: protocol as ProbeFamily | 'auto', token, ratePerSecond, maxRequests, timeoutMs, rpcUrl, strict: g.strict === true });
        } catch (err) {
          if (err instanceof ProbeUnreachableError) throw new CliError(err.message, 'is the agent running at that address?', EXIT.ENV);
          if (err instanceof ProbeTargetError) throw new CliError(err.message, null, EXIT.USAGE);
          throw err;
        }
        if (g.junit !== undefined) {
          try {
            writeFileSync(g.junit, renderJunit(report));
          } catch (err) {
            throw new CliError(`cannot write --junit ${g.junit}: ${(err as NodeJS.ErrnoException).code ?? 'unwritable'}`, null, EXIT.ENV);
          }
        }
        if (g.json) ctx.json(reportJson(report));
        else ctx.out(renderText(report));
        ctx.exitCode = report.ok ? EXIT.OK : EXIT_CASE_FAILED;
      });
  },
};
