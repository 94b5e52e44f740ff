/**
 * The demo (issue 7): sample dealer agents (AAP on @a2a-js/sdk, DMC-12 on node:http), a buyer
 * simulator with well-behaved and misbehaving buyers, on the package's public entry points (the
 * `aap-triage demo` command that runs them and shows the store is src/cli/demo/command.ts).
 * Re-exports only; see docs/demo.md.
 */
export { runDemoTraffic, type DemoTraffic, type DemoTrafficOptions } from './run-demo.js';
export { startDealers, type DealersOptions, type RunningDealers } from './dealers.js';
export { runSimulation, type BuyerReport, type SimulationOptions } from './simulator.js';
export { personas, fakeCustomer, type Persona, type FakeCustomer } from './buyers/personas.js';
export { AAP_EXTENSION_URI, A2A_VERSION, DEALER_DEFAULTS, DEMO_DEFAULTS } from './constants.js';
export { demoInventory, DEALER, type DemoVehicle } from './inventory.js';
