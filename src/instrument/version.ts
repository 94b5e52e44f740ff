/** Instrumentation scope version handed to the tracer and meter (kept equal to package.json by a test). */
export const VERSION = '0.1.0';
