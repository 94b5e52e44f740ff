import type { CommandModule } from '../context.js';
import { doctorCommand } from './doctor.js';
import { draftCommand } from './draft.js';
import { forgetCommand } from './forget.js';
import { hashCommand } from './hash.js';
import { pruneCommand } from './prune.js';
import { searchCommand } from './search.js';
import { showCommand } from './show.js';
import { statsCommand } from './stats.js';
import { stormsCommand } from './storms.js';
import { tailCommand } from './tail.js';
import { traceCommand } from './trace.js';

/**
 * The built-in commands, in help order. One file per verb. `loadCommands` adds the optional
 * ones owned by other parts (`demo.ts`, `tui.ts`). A module that registers its command with
 * `{ isDefault: true }` runs when no command is given.
 */
export const COMMANDS: readonly CommandModule[] = [
  searchCommand,
  showCommand,
  traceCommand,
  tailCommand,
  statsCommand,
  stormsCommand,
  draftCommand,
  hashCommand,
  pruneCommand,
  forgetCommand,
  doctorCommand,
];

/**
 * Commands other parts of the project add as `src/cli/commands/<verb>.ts`, each exporting a
 * `CommandModule` whose `name` is the verb (`demoCommand`, `tuiCommand`). They are loaded when
 * present, lazily, so the built-in commands work (and load fast) without them.
 */
export const OPTIONAL_COMMANDS = ['demo', 'tui'] as const;

/** The built-in commands plus the optional ones whose module exists. */
export async function loadCommands(): Promise<CommandModule[]> {
  const out = [...COMMANDS];
  for (const verb of OPTIONAL_COMMANDS) {
    const url = new URL(`./${verb}.js`, import.meta.url);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(url.href)) as Record<string, unknown>;
    } catch (error) {
      const e = error as { code?: string; url?: string; message?: string };
      // Only "this very file is absent" means the command is not installed; anything else is a bug to report.
      if ((e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'ERR_UNKNOWN_FILE_EXTENSION') && String(e.url ?? e.message ?? '').includes(`${verb}.`)) continue;
      throw error;
    }
    const found = Object.values(mod).find(
      (v): v is CommandModule => typeof v === 'object' && v !== null && (v as CommandModule).name === verb && typeof (v as CommandModule).register === 'function',
    );
    if (found) out.push(found);
  }
  return out;
}
