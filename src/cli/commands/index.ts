import type { CommandModule } from '../context.js';
import { alertsCommand } from './alerts.js';
import { clientsCommand } from './clients.js';
import { completionCommand } from './completion.js';
import { demoCommand } from './demo.js';
import { doctorCommand } from './doctor.js';
import { draftCommand } from './draft.js';
import { forgetCommand } from './forget.js';
import { hashCommand } from './hash.js';
import { issuesCommand } from './issues.js';
import { probeCommand } from './probe.js';
import { pruneCommand } from './prune.js';
import { searchCommand } from './search.js';
import { showCommand } from './show.js';
import { statsCommand } from './stats.js';
import { stormsCommand } from './storms.js';
import { tailCommand } from './tail.js';
import { traceCommand } from './trace.js';
import { tuiCommand } from './tui.js';

/**
 * Every command, in help order; one file per verb. A file here defines its command (name,
 * arguments, options, help: what `--help` and `completion` read) and imports what the command
 * does on first use, `await import('../actions/<verb>.js')` in its action (`demo`, `tui` and
 * `probe` their own heavy parts), so `--version`, `--help` and each command load only their own
 * code (issue 31 "Start-up"). A module that registers its command with `{ isDefault: true }` (the
 * TUI) runs when no command is given.
 */
export const COMMANDS: readonly CommandModule[] = [
  searchCommand,
  showCommand,
  traceCommand,
  tailCommand,
  statsCommand,
  issuesCommand,
  clientsCommand,
  stormsCommand,
  draftCommand,
  alertsCommand,
  hashCommand,
  pruneCommand,
  forgetCommand,
  doctorCommand,
  probeCommand,
  tuiCommand,
  demoCommand,
  completionCommand,
];
