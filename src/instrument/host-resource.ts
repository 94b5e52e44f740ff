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
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { safeServiceVersion } from '../protocol/value-patterns.js';

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
  const name = resourceAttribute(provider, ATTR_SERVICE_NAME);
  return typeof name === 'string' && name !== '' && !name.startsWith('unknown_service') ? name : null;
}

/**
 * `service.version` of the host's OpenTelemetry resource (issue 29), read as
 * {@link resourceServiceName} reads the name: the resource merges `OTEL_RESOURCE_ATTRIBUTES` and
 * the host's own `serviceVersion`. Null when absent, not yet settled, or not matching
 * `SAFE_SERVICE_VERSION` (src/protocol/value-patterns.ts). Never throws.
 */
export function resourceServiceVersion(provider: TracerProvider): string | null {
  return safeServiceVersion(resourceAttribute(provider, ATTR_SERVICE_VERSION));
}

/**
 * `service.version` named by the environment when no resource does: `OTEL_SERVICE_VERSION`, else
 * the `service.version` entry of `OTEL_RESOURCE_ATTRIBUTES` (comma-separated `key=value`, values
 * percent-encoded, as the OpenTelemetry environment specification writes them). Null when
 * neither names a version that passes `SAFE_SERVICE_VERSION`. Never throws.
 */
export function envServiceVersion(env: NodeJS.ProcessEnv): string | null {
  const own = env.OTEL_SERVICE_VERSION?.trim();
  if (own) return safeServiceVersion(own);
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== ATTR_SERVICE_VERSION) continue;
    try {
      return safeServiceVersion(decodeURIComponent(pair.slice(at + 1).trim()));
    } catch {
      return null;
    }
  }
  return null;
}

/** One attribute of the provider's settled resource, or undefined. Never throws. */
function resourceAttribute(provider: TracerProvider, name: string): unknown {
  try {
    const sdk = (provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider) as WithResource;
    const resource = sdk._resource;
    if (!resource || resource.asyncAttributesPending) return undefined;
    return resource.attributes?.[name];
  } catch {
    return undefined;
  }
}
