// Child of bench/startup.bench.mjs: the "server" of the start-up scenario. Prints how long the
// process took to reach its main module (ms since process start, performance.now), which
// includes every `--import` preload.
console.log(JSON.stringify({ ms: performance.now() }));
