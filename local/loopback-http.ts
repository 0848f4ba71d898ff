import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` listening on 127.0.0.1 only (never on every interface) and answers its endpoint.
 *
 * @example
 * ```ts
 * const endpoint = await listenOnLoopback(http.createServer(handler), 0); // 'http://127.0.0.1:41234'
 * ```
 */
export async function listenOnLoopback(server: http.Server, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Reads a request's body as UTF-8, keeping at most `maxBytes`; a longer one is read to its end (so
 * the connection stays usable) and rejected with `tooLarge()`.
 *
 * @example
 * ```ts
 * const text = await readBody(request, 4 * 1024 * 1024, () => badRequest('Request is larger than 4 MiB.'));
 * ```
 */
export function readBody(request: http.IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    request.on('end', () => (size > maxBytes ? reject(tooLarge()) : resolve(Buffer.concat(chunks).toString('utf8'))));
    request.on('error', reject);
  });
}
