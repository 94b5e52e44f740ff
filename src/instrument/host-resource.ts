/**
 * The resource attributes aap-triage adds about the machine (issue 13): `host.name` and
 * `host.arch`, read synchronously. Nothing about the process — no command line, executable
 * path or user, which the SDK's process detector would publish to every backend and scraper.
 *
 * Why not the SDK's `hostDetector`: it also reads `host.id` asynchronously, and the Prometheus
 * exporter reads the resource without waiting for it, which logs "Accessing resource attributes
 * before async attributes settled" through diag on the first scrape.
 */
import { arch, hostname } from 'node:os';

/** semconv `host.arch` values for Node's `os.arch()` names. */
const ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm: 'arm32', ia32: 'x86', ppc: 'ppc32', ppc64: 'ppc64', arm64: 'arm64', s390x: 's390x' };

/** `{ 'host.name', 'host.arch' }` of this machine. Never throws. */
export function hostResourceAttributes(): Record<string, string> {
  const out: Record<string, string> = {};
  try {
    out['host.name'] = hostname();
  } catch {
    // No host name: leave it out.
  }
  out['host.arch'] = ARCH[arch()] ?? arch();
  return out;
}
