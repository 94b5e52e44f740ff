/**
 * This package's version (the one in package.json): the instrumentation scope
 * version handed to the tracer and meter, and the probe's User-Agent product version. Here, at
 * the bottom of the layers (DESIGN §3), so both may read it.
 */
export const VERSION = '0.1.0';
