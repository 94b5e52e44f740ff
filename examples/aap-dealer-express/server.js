// A small AAP dealer agent: Express 5 + @a2a-js/sdk 1.3 (DefaultRequestHandler), with the
// aap-triage middleware in front. Two skills, inventory.search and inventory.vehicle, over a
// three-car inventory. README.md has the requests to send it and the answers it gives.
//
//   npm install && npm start          (PORT, default 8080; AAP_TRIAGE_DB, default ./aap-triage.db)
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Role } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { ExtensionSupportRequiredError } from '@a2a-js/sdk/errors';
import { createTriage } from 'aap-triage';
import { AapError, buildExtensionRequiredError } from 'aap-triage/protocol';

const PORT = Number(process.env.PORT ?? 8080);
const HOST = process.env.HOST ?? '127.0.0.1';
const BASE_URL = `http://${HOST}:${PORT}`;
// The AAP profile this agent serves. Buyers activate it with `A2A-Extensions: <this URI>`; it is
// under the reserved .example domain because the spec's draft URIs must not be deployed. Put
// your own profile's URI here.
const AAP_EXTENSION_URI = 'https://dealer.example/extensions/aap/2.0';

const INVENTORY = [
  { vehicle_id: 'veh-1001', vin: '1HGCM82633A004352', year: 2024, make: 'Honda', model: 'Accord', price: 28990, status: 'available' },
  { vehicle_id: 'veh-1002', vin: '5YJ3E1EA7KF317000', year: 2023, make: 'Tesla', model: 'Model 3', price: 34500, status: 'available' },
  { vehicle_id: 'veh-1003', vin: '1FTFW1ET5DFC10312', year: 2022, make: 'Ford', model: 'F-150', price: 41250, status: 'available' },
];

/** The skills' logic: the request's data part in, the response's data part out, or a thrown AapError. */
function runSkill(data) {
  const type = typeof data?.type === 'string' ? data.type : '';
  if (type === 'inventory.search.request') {
    const make = typeof data.make === 'string' ? data.make.toLowerCase() : null;
    const vehicles = INVENTORY.filter((v) => make === null || v.make.toLowerCase() === make);
    return { type: 'inventory.search.response', data: { vehicles, total: vehicles.length } };
  }
  if (type === 'inventory.vehicle.request') {
    const vehicle = INVENTORY.find((v) => v.vin === data.vin);
    if (!vehicle) throw new AapError('VEHICLE_NOT_FOUND', 'No listing matches that VIN.', { details: { identifiers: ['vin'] } });
    return { type: 'inventory.vehicle.response', data: vehicle };
  }
  throw new AapError('UNSUPPORTED_SKILL', 'This dealer agent does not implement the requested skill.', {
    details: { supported: ['inventory.search', 'inventory.vehicle'] },
  });
}

const card = {
  name: 'Example Motors (AAP)',
  description: 'Example AAP dealer agent: search a three-car inventory and look up one vehicle by VIN.',
  supportedInterfaces: [{ url: `${BASE_URL}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
  provider: { organization: 'Example Motors', url: 'https://dealer.example' },
  version: '1.0.0',
  capabilities: {
    streaming: false,
    pushNotifications: false,
    extensions: [{ uri: AAP_EXTENSION_URI, description: 'Auto Agent Protocol 2.0', required: true, params: {} }],
  },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [
    { id: 'inventory.search', name: 'Inventory Search', description: 'Search by make.', tags: ['inventory'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
    { id: 'inventory.vehicle', name: 'Vehicle Detail', description: 'One vehicle by VIN.', tags: ['vin'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
  ],
  signatures: [],
};

// The SDK runs the executor once per SendMessage; it must publish AgentEvent.message(...), not a
// bare Message (a bare one fails the call with -32603). The answer was computed in sendMessage.
const ANSWER = 'example.answer';
const executor = {
  async execute(ctx, bus) {
    bus.publish(AgentEvent.message({
      messageId: randomUUID(), contextId: ctx.contextId, taskId: '', role: Role.ROLE_AGENT,
      parts: [{ content: { $case: 'data', value: ctx.context.state.get(ANSWER) }, mediaType: 'application/json', filename: '', metadata: undefined }],
      metadata: undefined, extensions: [AAP_EXTENSION_URI], referenceTaskIds: [],
    }));
    bus.finished();
  },
  async cancelTask() {},
};

// Skill errors are thrown here, in the request handler, so the answer is a JSON-RPC error; the
// aap-triage middleware turns the thrown AapError into the AAP error envelope. (The SDK itself
// answers a request without `A2A-Version: 1.0` with -32009 before this runs.)
class DealerRequestHandler extends DefaultRequestHandler {
  async sendMessage(params, context) {
    if (!(context.requestedExtensions ?? []).includes(AAP_EXTENSION_URI)) {
      const { message, data } = buildExtensionRequiredError(AAP_EXTENSION_URI);
      throw new ExtensionSupportRequiredError({ message, metadata: data[0].metadata });
    }
    const first = params.message?.parts?.[0]?.content;
    context.state.set(ANSWER, runSkill(first?.$case === 'data' ? first.value : undefined));
    return super.sendMessage(params, context);
  }
}

const requestHandler = new DealerRequestHandler(card, new InMemoryTaskStore(), executor);
const triage = createTriage({ serviceName: 'example-motors-aap' }); // audit db: AAP_TRIAGE_DB, else ./aap-triage.db
const app = express();
app.use(triage.middleware()); // first, so it sees every exchange
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
app.use('/a2a', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
app.use(triage.errorHandler()); // after the routes: a body the SDK's JSON parser cannot read gets a JSON-RPC error, not an HTML page
const server = app.listen(PORT, HOST, () => console.error(`AAP dealer agent on ${BASE_URL}/a2a (agent card: ${BASE_URL}/.well-known/agent-card.json)`));

// Flush the audit store before exiting.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => server.close(() => triage.shutdown().then(() => process.exit(0))));
}
