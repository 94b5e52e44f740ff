/**
 * The layer rule of DESIGN §3, checked by dependency-cruiser (`npm run depcruise`, part of
 * `npm test`): imports flow one way and there are no import circles. Type-only and dynamic
 * imports count like any other (`tsPreCompilationDeps`): a circle of types is still a circle
 * for whoever has to change one of its files.
 *
 * The layers, bottom up (each may import the ones named, its own folder, and npm packages):
 *   protocol   nothing of ours
 *   incident   nothing of ours (the incident document and its renderers, shared by triage and client)
 *   audit      protocol
 *   instrument protocol, audit
 *   client     protocol, incident
 *   probe      protocol, client
 *   triage     protocol, audit, incident
 *   tui        triage, incident, protocol (views never touch SQL, nor the CLI above them)
 *   cli        everything but audit, instrument and client (it reaches them through triage and probe)
 *   demo       the public entry points only, as a user would: the package's `.`, `./register`,
 *              `./protocol` and `./client` (src/instrument/index.ts, register.ts,
 *              src/protocol/index.ts, src/client/index.ts)
 */

/** A rule that `from` imports nothing of ours outside the folders in `allowed` (its own included). */
const only = (layer, allowed, comment) => ({
  name: `${layer}-imports-only-${allowed.join('-') || 'itself'}`,
  comment,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: '^src/', pathNot: `^src/(${[layer, ...allowed].join('|')})/` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'DESIGN §3: no import circles (types and dynamic imports included).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    only('protocol', [], 'DESIGN §3: protocol imports nothing of ours (codes as data, no I/O).'),
    only('incident', [], 'src/incident/index.ts: the document and its renderers import nothing of ours, so triage and client may both use them.'),
    only('audit', ['protocol'], 'DESIGN §3: audit imports only protocol.'),
    only('instrument', ['protocol', 'audit'], 'DESIGN §3: instrument imports protocol and audit.'),
    only('client', ['protocol', 'incident'], 'DESIGN §3: client imports protocol (and the shared incident document).'),
    only('probe', ['protocol', 'client'], 'DESIGN §3: the probe uses protocol and client.'),
    only('triage', ['protocol', 'audit', 'incident'], 'DESIGN §3: triage imports audit and protocol (and the shared incident document).'),
    only('tui', ['triage', 'incident', 'protocol'], 'DESIGN §3: tui imports triage; views never touch SQL, and nothing below the CLI imports it.'),
    {
      name: 'cli-through-triage',
      comment: 'DESIGN §3: cli imports triage (views never touch SQL); the store, the instrumentation and the client are reached through triage and probe.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(audit|instrument|client)/' },
    },
    {
      name: 'demo-through-public-entry-points',
      comment: 'DESIGN §3: demo uses the public entry points exactly as a user would (package.json "exports").',
      severity: 'error',
      from: { path: '^src/demo/' },
      to: { path: '^src/', pathNot: ['^src/demo/', '^src/(instrument/index|instrument/register|protocol/index|client/index)[.]ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
