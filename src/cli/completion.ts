/**
 * Shell completion scripts (issue #17 "CLI conventions"): `aap-triage completion bash|zsh|fish`
 * prints a script generated from the commander program itself, so every command, subcommand and
 * option the program has is completed and nothing is kept by hand. Options that take a path
 * (`--db`, `--key-file`, `--out`) complete file names.
 */
import type { Command, Option } from 'commander';

/** The shells a script is made for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Spec {
  name: string;
  description: string;
  options: Option[];
  subcommands: Spec[];
}

const FILE_OPTIONS = new Set(['--db', '--key-file', '--out']);

function spec(cmd: Command): Spec {
  return {
    name: cmd.name(),
    description: cmd.description().split('\n')[0] ?? '',
    options: cmd.options.filter((o) => o.long !== undefined && !o.hidden),
    subcommands: cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map(spec),
  };
}

const flags = (opts: readonly Option[]): string => opts.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)).join(' ');
/** Text for single quotes in bash, zsh and fish: `'` becomes `'\''` (fish: `\'`). */
const sq = (s: string): string => s.replace(/'/g, `'\\''`);
const fishQuote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function bash(root: Spec, bin: string, fn: string): string {
  const globals = `${flags(root.options)} --help`;
  const cases: string[] = [];
  for (const c of root.subcommands) {
    const subs = c.subcommands.map((s) => s.name).join(' ');
    const subCases = c.subcommands.map((s) => `        ${s.name}) opts="${flags(s.options)} ${flags(c.options)}" ;;`).join('\n');
    cases.push(
      `    ${c.name})\n` +
        (subs
          ? `      case "$sub" in\n${subCases}\n        *) opts="${subs} ${flags(c.options)}" ;;\n      esac ;;`
          : `      opts="${flags(c.options)}" ;;`),
    );
  }
  return `# ${bin} completion for bash: eval "$(${bin} completion bash)", or save it to
# /etc/bash_completion.d/${bin} (or ~/.local/share/bash-completion/completions/${bin}).
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" sub="" w i
  case "$prev" in
    ${[...FILE_OPTIONS].join('|')}) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;
  esac
  for (( i = 1; i < COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      --db|--since|--until|--limit|--key-file) (( i++ )) ;;
      -*) ;;
      *) if [[ -z "$cmd" ]]; then cmd="$w"; elif [[ -z "$sub" ]]; then sub="$w"; fi ;;
    esac
  done
  local opts=""
  case "$cmd" in
    "") opts="${root.subcommands.map((c) => c.name).join(' ')}" ;;
${cases.join('\n')}
  esac
  COMPREPLY=( $(compgen -W "$opts ${globals}" -- "$cur") )
}
complete -o default -F ${fn} ${bin}
`;
}

/** An _arguments spec for one option: `--db[audit database]:file:_files`. */
function zshOption(o: Option): string {
  const desc = o.description.replace(/[[\]]/g, '').replace(/'/g, `'\\''`);
  const long = o.long as string;
  const value = o.required || o.optional ? (FILE_OPTIONS.has(long) ? ':file:_files' : ':value:') : '';
  return `'${long}[${desc}]${value}'`;
}

function zsh(root: Spec, bin: string, fn: string): string {
  const described = (list: readonly Spec[]): string => list.map((c) => `'${sq(c.name)}:${sq(c.description.replace(/:/g, '\\:'))}'`).join(' ');
  const globals = root.options.map(zshOption).join(' ');
  const cases = root.subcommands.map((c) => {
    const own = c.options.map(zshOption).join(' ');
    if (c.subcommands.length) {
      const subCases = c.subcommands.map((s) => `          ${s.name}) _arguments ${[...s.options.map(zshOption), own, globals].filter(Boolean).join(' ')} '*:argument:' ;;`).join('\n');
      return `      ${c.name})\n        if (( CURRENT == 2 )); then\n          local -a subs; subs=(${described(c.subcommands)}); _describe 'subcommand' subs\n        else\n          case $words[2] in\n${subCases}\n          esac\n        fi ;;`;
    }
    return `      ${c.name}) _arguments ${[own, globals].filter(Boolean).join(' ')} '*:argument:' ;;`;
  });
  return `#compdef ${bin}
# ${bin} completion for zsh: eval "$(${bin} completion zsh)", or save it as _${bin} in a folder of $fpath.
${fn}() {
  local -a commands
  commands=(${described(root.subcommands)})
  _arguments -C ${globals} '1:command:->command' '*::argument:->argument'
  case $state in
    command) _describe 'command' commands ;;
    argument)
      case $words[1] in
${cases.join('\n')}
      esac ;;
  esac
}
compdef ${fn} ${bin}
`;
}

function fish(root: Spec, bin: string): string {
  const line = (cond: string | null, o: Option): string =>
    `complete -c ${bin}${cond ? ` -n ${fishQuote(cond)}` : ''} -l ${(o.long as string).slice(2)}${o.short ? ` -s ${o.short.slice(1)}` : ''}${
      o.required || o.optional ? (FILE_OPTIONS.has(o.long as string) ? ' -r -F' : ' -r') : ''
    } -d ${fishQuote(o.description)}`;
  const out = [`# ${bin} completion for fish: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish`, `complete -c ${bin} -f`];
  for (const o of root.options) out.push(line(null, o));
  const top = root.subcommands.map((c) => c.name).join(' ');
  for (const c of root.subcommands) {
    out.push(`complete -c ${bin} -n ${fishQuote(`not __fish_seen_subcommand_from ${top}`)} -a ${c.name} -d ${fishQuote(c.description)}`);
    for (const o of c.options) out.push(line(`__fish_seen_subcommand_from ${c.name}`, o));
    const subs = c.subcommands.map((s) => s.name).join(' ');
    for (const s of c.subcommands) {
      out.push(`complete -c ${bin} -n ${fishQuote(`__fish_seen_subcommand_from ${c.name}; and not __fish_seen_subcommand_from ${subs}`)} -a ${s.name} -d ${fishQuote(s.description)}`);
      for (const o of s.options) out.push(line(`__fish_seen_subcommand_from ${s.name}`, o));
    }
  }
  return `${out.join('\n')}\n`;
}

/** The completion script for `shell`, generated from `program` (its name is the command completed). */
export function completionScript(program: Command, shell: Shell): string {
  const root = spec(program);
  const bin = program.name();
  const fn = `_${bin.replace(/[^A-Za-z0-9]/g, '_')}`;
  return shell === 'bash' ? bash(root, bin, fn) : shell === 'zsh' ? zsh(root, bin, fn) : fish(root, bin);
}
