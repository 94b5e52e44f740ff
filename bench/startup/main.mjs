// Child of bench/startup.bench.mjs: the "server" of the start-up scenario. Prints how long the
// process took to reach its main module — wall time since process start (ms, performance.now)
// and CPU time used so far (ms, user + system, every thread) — which includes every `--import`
// preload.
const { user, system } = process.cpuUsage();
console.log(JSON.stringify({ ms: performance.now(), cpu: (user + system) / 1000 }));
