// A loopback OTLP/HTTP receiver for the export tests: keeps every JSON body posted to /v1/metrics.
import { createServer } from 'node:http';

/** A running receiver: `endpoint` for OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, the bodies so far, `close()`. */
export interface OtlpReceiver {
  endpoint: string;
  bodies: string[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 and a free port; answers every post `200 {}`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.url === '/v1/metrics') bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/metrics`,
    bodies,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
