// A small DMC-12 dealer agent: JSON-RPC 2.0 `tools/call` on a plain node:http server, wrapped
// by aap-triage. Two tools, search_inventory and get_vehicle, over a three-car inventory. Tool
// errors come back inside a successful result (`result.data` + `result._metadata`, built with
// buildDmc12Error); a missing or unknown bearer token is JSON-RPC -32001 with HTTP 401.
// README.md has the requests to send it and the answers it gives.
//
//   npm install && npm start          (PORT, default 8081; AAP_TRIAGE_DB, default ./aap-triage.db)
import { createServer } from 'node:http';
import { createTriage } from 'aap-triage';
import { buildDmc12Error } from 'aap-triage/protocol';

const PORT = Number(process.env.PORT ?? 8081);
const HOST = process.env.HOST ?? '127.0.0.1';
// Partner tokens this agent accepts (`Authorization: Bearer <token>`). Load yours from a secret store.
const TOKENS = new Set(['demo-partner-token']);
const VIN = /^[A-HJ-NPR-Z0-9]{17}$/;

const INVENTORY = [
  { vin: '1HGCM82633A004352', year: 2024, make: 'Honda', model: 'Accord', price: 28990, status: 'available' },
  { vin: '5YJ3E1EA7KF317000', year: 2023, make: 'Tesla', model: 'Model 3', price: 34500, status: 'available' },
  { vin: '1FTFW1ET5DFC10312', year: 2022, make: 'Ford', model: 'F-150', price: 41250, status: 'available' },
];

/** A tool error: the DMC-12 code and a message that echoes nothing the caller sent. */
class ToolError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

const TOOLS = {
  search_inventory(args) {
    const make = typeof args.make === 'string' ? args.make.toLowerCase() : null;
    const vehicles = INVENTORY.filter((v) => make === null || v.make.toLowerCase() === make);
    return { vehicles, total: vehicles.length };
  },
  get_vehicle(args) {
    if (typeof args.vin !== 'string' || !VIN.test(args.vin)) throw new ToolError('VALIDATION_FAILED', 'vin must be 17 characters (A-Z without I, O, Q; 0-9).');
    const vehicle = INVENTORY.find((v) => v.vin === args.vin);
    if (!vehicle) throw new ToolError('VEHICLE_NOT_FOUND', 'No vehicle with that VIN is in inventory.');
    return vehicle;
  },
};

/** One JSON-RPC request object in, `[httpStatus, response]` out. */
function answer(rpc, authorization) {
  const id = typeof rpc?.id === 'string' || typeof rpc?.id === 'number' ? rpc.id : null;
  if (rpc?.jsonrpc !== '2.0' || typeof rpc.method !== 'string') return [200, { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request.' } }];
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token || !TOKENS.has(token)) return [401, { jsonrpc: '2.0', id, error: { code: -32001, message: 'Unauthorized: missing, expired or unknown bearer token.' } }];
  if (rpc.method !== 'tools/call') return [200, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found.' } }];
  const name = rpc.params?.name;
  const tool = Object.hasOwn(TOOLS, name) ? name : null;
  try {
    if (!tool) throw new ToolError('VALIDATION_FAILED', 'Unknown tool; call search_inventory or get_vehicle.');
    const data = TOOLS[tool](rpc.params.arguments ?? {});
    return [200, { jsonrpc: '2.0', id, result: { data, _metadata: { tool } } }];
  } catch (err) {
    const code = err instanceof ToolError ? err.code : 'INTERNAL_ERROR';
    const message = err instanceof ToolError ? err.message : 'Unexpected server fault.';
    // data = {error, message, error_code, retryable, error_id}; _metadata.trace_id = trc_… (minted).
    return [200, { jsonrpc: '2.0', id, result: buildDmc12Error(code, { tool: tool ?? 'unknown_tool', message }) }];
  }
}

function listener(req, res) {
  const send = (status, body) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  if (req.method !== 'POST' || req.url !== '/rpc') return send(404, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'POST JSON-RPC to /rpc.' } });
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let rpc;
    try {
      rpc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error.' } });
    }
    send(...answer(rpc, req.headers.authorization));
  });
}

const triage = createTriage({ serviceName: 'example-motors-dmc12' }); // audit db: AAP_TRIAGE_DB, else ./aap-triage.db
const server = createServer(triage.wrap(listener));
server.listen(PORT, HOST, () => console.error(`DMC-12 dealer agent on http://${HOST}:${PORT}/rpc`));

// Flush the audit store before exiting.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => server.close(() => triage.shutdown().then(() => process.exit(0))));
}
