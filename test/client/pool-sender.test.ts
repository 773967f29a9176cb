// The client's own wire (client/http.ts): an answer gathered from undici's dispatch
// as it arrives, against a real HTTP server on loopback — a body in many
// chunks, the headers, and a caller's signal aborting a request before it is
// sent and while its answer is awaited, with the pool still usable after.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolSender } from '../../client/http.ts';

let server: Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/chunks') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-parts': '3' });
        // Separate writes, each flushed: the client gets several chunks, one of them splitting a character.
        const text = Buffer.from('ä'.repeat(40_000) + ' end', 'utf8');
        res.write(text.subarray(0, 3));
        setTimeout(() => {
          res.write(text.subarray(3, 50_001));
          setTimeout(() => res.end(text.subarray(50_001)), 5);
        }, 5);
      } else if (req.url === '/hold') {
        // Answers only after a long while: the client aborts first.
        setTimeout(() => res.end('late'), 10_000).unref();
      } else {
        res.writeHead(201, { 'set-cookie': ['a=1', 'b=2'] });
        res.end(`echo:${body}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('poolSender', () => {
  it('gathers a body sent in several chunks, and reads the headers', async () => {
    const send = poolSender();
    try {
      const answer = await send({ method: 'GET', url: `${base}/chunks`, headers: {} });
      expect(answer.status).toBe(200);
      expect(answer.statusText).toBe('OK');
      expect(answer.header('X-Parts')).toBe('3');
      expect(answer.text).toBe('ä'.repeat(40_000) + ' end');
      const posted = await send({ method: 'POST', url: `${base}/echo`, headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect([posted.status, posted.text, posted.header('set-cookie')]).toEqual([201, 'echo:hello', 'a=1, b=2']);
    } finally {
      await send.close();
    }
  });

  it('sends nothing for a signal aborted already, and cuts an awaited answer short when it aborts', async () => {
    const send = poolSender();
    try {
      const before = seen.length;
      const gone = AbortSignal.abort(new Error('stopped before sending'));
      await expect(send({ method: 'GET', url: `${base}/never`, headers: {}, signal: gone })).rejects.toThrow('stopped before sending');
      expect(seen.slice(before)).toEqual([]);

      const controller = new AbortController();
      const held = send({ method: 'GET', url: `${base}/hold`, headers: {}, signal: controller.signal });
      while (!seen.includes('GET /hold')) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      await expect(held).rejects.toMatchObject({ name: 'AbortError' });

      // The pool goes on serving after an aborted request.
      const after = await send({ method: 'POST', url: `${base}/echo`, headers: {}, body: 'again' });
      expect(after.text).toBe('echo:again');
    } finally {
      await send.close();
    }
  });

  it('refuses a request after close()', async () => {
    const send = poolSender();
    await send({ method: 'POST', url: `${base}/echo`, headers: {}, body: 'x' });
    await send.close();
    await expect(send({ method: 'POST', url: `${base}/echo`, headers: {}, body: 'x' })).rejects.toThrow();
  });
});
