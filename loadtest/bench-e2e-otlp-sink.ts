// The collector of `bench:e2e --telemetry=traces`: a loopback HTTP server
// that takes OTLP/HTTP export requests, answers 200 with an empty export
// response, and discards them, counting requests and bytes so the report
// can show that spans did flow. It costs the bench process a little CPU
// per export, not the Orca server under test.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSink {
  /** The OTLP/HTTP traces URL to export to. */
  url: string;
  /** Export requests and body bytes taken so far. */
  readonly received: { requests: number; bytes: number };
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    request.on('end', () => {
      received.requests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
