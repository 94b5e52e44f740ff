/**
 * Discovery: what the agent at a URL is. AAP agents publish an agent card
 * (`/.well-known/agent-card.json`, A2A §8.2); DMC-12 agents answer `tools/list`. Two or three
 * read-only requests, through the run's sender (so they count against its caps).
 */
import { isObject, own, ownObject } from '../protocol/extract.js';
import { ProbeSender, transportErrorText } from './sender.js';
import type { ProbeFamily, ProbeTarget } from './types.js';

/** The well-known path of an A2A agent card. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Nothing answered at the URL, or nothing there speaks AAP or DMC-12 (the CLI exits 3). */
export class ProbeUnreachableError extends Error {
  override readonly name = 'ProbeUnreachableError';
}

/** The target is reachable but the run cannot go on as asked (the CLI exits 2): e.g. a card pointing elsewhere. */
export class ProbeTargetError extends Error {
  override readonly name = 'ProbeTargetError';
}

/** What an agent card says that the battery needs. */
export interface CardFacts {
  rpcUrl: string | null;
  versions: string[];
  requiredExtensions: string[];
  skills: string[];
}

/**
 * Reads an agent card: the JSONRPC interface (v1.0 `supportedInterfaces`, else v0.3 `url`), its
 * protocol versions, the extensions declared `required: true`, and the skill ids. Pure.
 */
export function readCard(card: unknown): CardFacts {
  const ifaces = own(card, 'supportedInterfaces');
  const jsonrpc = (Array.isArray(ifaces) ? ifaces : []).filter(
    (i) => isObject(i) && typeof i.url === 'string' && String(own(i, 'protocolBinding') ?? 'JSONRPC').toUpperCase() === 'JSONRPC',
  );
  const legacyUrl = own(card, 'url');
  const rpcUrl = (own(jsonrpc[0], 'url') as string | undefined) ?? (typeof legacyUrl === 'string' ? legacyUrl : null);
  const versions = jsonrpc.map((i) => own(i, 'protocolVersion')).filter((v): v is string => typeof v === 'string' && v.length > 0);
  if (versions.length === 0 && typeof own(card, 'protocolVersion') === 'string') versions.push(own(card, 'protocolVersion') as string);
  const exts = own(ownObject(card, 'capabilities'), 'extensions');
  const requiredExtensions = (Array.isArray(exts) ? exts : [])
    .filter((e) => own(e, 'required') === true && typeof own(e, 'uri') === 'string')
    .map((e) => own(e, 'uri') as string);
  const skillList = own(card, 'skills');
  const skills = (Array.isArray(skillList) ? skillList : []).map((s) => own(s, 'id')).filter((s): s is string => typeof s === 'string');
  return { rpcUrl, versions: [...new Set(versions)], requiredExtensions, skills };
}

/** The URLs an agent card may be at for `url`: `url` itself when it names the card, else under its path, then under its origin. */
export function cardUrls(url: URL): string[] {
  if (url.pathname.endsWith('agent-card.json')) return [url.href];
  const path = url.pathname.replace(/\/+$/, '');
  const out = [`${url.origin}${path}${AGENT_CARD_PATH}`];
  if (path !== '') out.push(`${url.origin}${AGENT_CARD_PATH}`);
  return out;
}

async function tryCard(sender: ProbeSender, href: string): Promise<unknown> {
  const res = await sender.fetch(href, { headers: { accept: 'application/json' } });
  if (!res.ok) {
    await res.body?.cancel();
    return null;
  }
  try {
    const card = (await res.json()) as unknown;
    return isObject(card) && (Object.hasOwn(card, 'supportedInterfaces') || Object.hasOwn(card, 'skills')) ? card : null;
  } catch {
    return null;
  }
}

/** `tools/list` over JSON-RPC: the tool names, `'auth'` when the agent wants a token (-32001), or null when it is no DMC-12 agent. */
async function tryTools(sender: ProbeSender, rpcUrl: string, token: string | undefined): Promise<string[] | 'auth' | null> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await sender.fetch(rpcUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 'aap-triage-probe-tools', method: 'tools/list' }) });
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return null;
  }
  if (own(ownObject(body, 'error'), 'code') === -32001) return 'auth';
  const tools = own(ownObject(body, 'result'), 'tools');
  if (!Array.isArray(tools)) return null;
  return tools.map((t) => own(t, 'name')).filter((n): n is string => typeof n === 'string');
}

/**
 * Finds out what `url` is, per `protocol` (`auto`: the card first, then `tools/list`).
 * @throws ProbeUnreachableError when nothing answers or nothing there is an AAP or DMC-12 agent;
 *   ProbeTargetError when the card's JSON-RPC interface is on another origin and no `rpcUrl` was given.
 */
export async function discoverTarget(
  url: string,
  protocol: ProbeFamily | 'auto',
  sender: ProbeSender,
  options: { token?: string | undefined; rpcUrl?: string | undefined; timeoutMs: number },
): Promise<ProbeTarget> {
  const parsed = new URL(url);
  const base = { url, hasToken: Boolean(options.token), placeholder: false };
  try {
    if (protocol !== 'dmc12') {
      for (const href of cardUrls(parsed)) {
        const card = await tryCard(sender, href);
        if (card === null) continue;
        const facts = readCard(card);
        const rpcUrl = options.rpcUrl ?? facts.rpcUrl;
        if (rpcUrl === null) throw new ProbeTargetError(`the agent card at ${href} names no JSON-RPC interface — pass --rpc-url`);
        if (options.rpcUrl === undefined && new URL(rpcUrl).origin !== parsed.origin) {
          throw new ProbeTargetError(`the agent card points its JSON-RPC interface at another origin (${rpcUrl}) — pass --rpc-url ${rpcUrl} to probe it`);
        }
        return { ...base, family: 'aap', rpcUrl, versions: facts.versions, requiredExtensions: facts.requiredExtensions, skills: facts.skills };
      }
      if (protocol === 'aap') throw new ProbeUnreachableError(`no agent card at ${cardUrls(parsed).join(' or ')}`);
    }
    const rpcUrl = options.rpcUrl ?? url;
    const tools = await tryTools(sender, rpcUrl, options.token);
    if (tools === null) throw new ProbeUnreachableError(`${url} serves neither an agent card nor a JSON-RPC tools/list`);
    return { ...base, family: 'dmc12', rpcUrl, versions: [], requiredExtensions: [], skills: tools === 'auth' ? [] : tools };
  } catch (err) {
    if (err instanceof ProbeUnreachableError || err instanceof ProbeTargetError) throw err;
    if (err instanceof Error && err.name === 'RequestCapReached') throw err;
    throw new ProbeUnreachableError(`cannot reach ${url}: ${transportErrorText(err, options.timeoutMs)}`);
  }
}

/** A target with placeholders, for `--dry-run` (nothing is fetched). */
export function placeholderTarget(url: string, family: ProbeFamily): ProbeTarget {
  return {
    family,
    url,
    rpcUrl: family === 'aap' ? '<the JSON-RPC URL of the agent card>' : url,
    versions: ['1.0'],
    requiredExtensions: family === 'aap' ? ['<the required extension URI of the agent card>'] : [],
    skills: family === 'aap' ? ['dealer.information', 'inventory.search', 'lead.submit'] : ['get_vehicle'],
    hasToken: true,
    placeholder: true,
  };
}
