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
import { ProxyTracerProvider } from '@opentelemetry/api';
import type { TracerProvider } from '@opentelemetry/api';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

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

/** What the SDK's tracer provider holds of its resource (an SDK internal: read, never relied on). */
interface WithResource {
  _resource?: { attributes?: Record<string, unknown>; asyncAttributesPending?: boolean };
}

/**
 * `service.name` of the host's OpenTelemetry resource, read from its tracer provider (the global
 * proxy's delegate, or the provider itself), as contrib instrumentations take it: the resource
 * merges `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` and the host's own `serviceName`. Null
 * when the provider is not the SDK's, the resource still waits for async attributes, or it holds
 * only the SDK's `unknown_service` default. Never throws.
 */
export function resourceServiceName(provider: TracerProvider): string | null {
  try {
    const sdk = (provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider) as WithResource;
    const resource = sdk._resource;
    if (!resource || resource.asyncAttributesPending) return null;
    const name = resource.attributes?.[ATTR_SERVICE_NAME];
    return typeof name === 'string' && name !== '' && !name.startsWith('unknown_service') ? name : null;
  } catch {
    return null;
  }
}
