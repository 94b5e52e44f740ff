/**
 * The demo AAP dealer's agent card (served at `/.well-known/agent-card.json`): one JSON-RPC
 * interface on A2A 1.0, the AAP extension declared `required: true` (so the server must reject a
 * request that does not activate it, spec/aap-errors.txt "The server MUST check activation"),
 * and the five AAP skills.
 */
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { A2A_VERSION, AAP_EXTENSION_URI } from '../constants.js';
import { DEALER } from '../inventory.js';
import { AAP_SKILLS, type AapSkill } from './schemas.js';

const SKILL_TEXT: Record<AapSkill, [name: string, description: string, tags: string[]]> = {
  'dealer.information': ['Dealer Information', 'The dealership profile: rooftop, address, hours and contacts.', ['dealer', 'profile', 'hours']],
  'inventory.facets': ['Inventory Facets', 'Aggregated facets (makes, models, years, conditions, statuses, price range).', ['inventory', 'facets']],
  'inventory.search': ['Inventory Search', 'Search the inventory by make, model, year, condition, price, mileage, body, fuel or VIN.', ['inventory', 'search']],
  'inventory.vehicle': ['Vehicle Detail', 'Full detail of one vehicle by VIN, stock number or vehicle_id.', ['inventory', 'vehicle', 'vin']],
  'lead.submit': ['Submit Lead', 'Submit a consented lead with an optional vehicle of interest, trade-in and appointment.', ['lead', 'consent', 'appointment']],
};

/**
 * Builds the agent card for a dealer whose JSON-RPC endpoint is `rpcUrl`. The returned object is
 * the one the request handler serves, so `setRpcUrl` can fix the URL once the port is known.
 */
export function buildAgentCard(rpcUrl: string): AgentCard {
  const skills: AgentSkill[] = AAP_SKILLS.map((id) => {
    const [name, description, tags] = SKILL_TEXT[id];
    return { id, name, description, tags, examples: [], inputModes: ['application/json'], outputModes: ['application/json'], securityRequirements: [] };
  });
  return {
    name: `${DEALER.name} (AAP demo)`,
    description: `Auto Agent Protocol dealer agent for ${DEALER.name}, a fictitious dealer: browse inventory and submit consented leads over A2A.`,
    supportedInterfaces: [{ url: rpcUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_VERSION }],
    provider: { organization: DEALER.name, url: DEALER.website },
    version: '0.1.0',
    documentationUrl: 'https://autoagentprotocol.org/',
    capabilities: {
      streaming: false,
      pushNotifications: false,
      extensions: [
        {
          uri: AAP_EXTENSION_URI,
          description: 'Auto Agent Protocol (2.0 draft). Activate it with the A2A-Extensions header.',
          required: true,
          params: { version: '2.0.0-draft', skills: Object.fromEntries(AAP_SKILLS.map((s) => [s, {}])) },
        },
      ],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills,
    signatures: [],
  };
}
