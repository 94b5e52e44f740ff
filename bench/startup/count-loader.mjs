// Module loader hook of bench/startup.bench.mjs: posts every file URL Node loads as an ES module
// (or as the CommonJS entry of one) to the main thread, which counts them.
let port;
export function initialize(data) {
  port = data.port;
}
export async function load(url, context, next) {
  if (url.startsWith('file:')) port.postMessage(url);
  return next(url, context);
}
