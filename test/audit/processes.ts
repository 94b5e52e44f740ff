/** Running the `.mjs` fixtures as child processes (they import the built `dist/`). */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const DIST_ENTRY = fileURLToPath(new URL('../../dist/audit/index.js', import.meta.url));

/** Throws a clear message when the fixtures' import target has not been built. */
export function requireDist(): void {
  if (!existsSync(DIST_ENTRY)) throw new Error(`${DIST_ENTRY} is missing: run npm run build (the child-process fixtures import dist/)`);
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Start a fixture; `done` resolves when it exits. */
export function startFixture(file: string, args: string[]): { child: ChildProcess; done: Promise<Finished>; stdout: () => string } {
  const child = spawn(process.execPath, [`${FIXTURES}${file}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Finished>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stdout: () => stdout };
}
