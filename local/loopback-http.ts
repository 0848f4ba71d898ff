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

/**
 * A request body as the JSON object the AWS JSON and restJson1 protocols carry (an empty body as
 * `{}`); anything else is refused with `invalid(message)`, the service's error for it.
 *
 * @example
 * ```ts
 * const input = jsonObjectBody(text, (message) => serializationError(message));
 * ```
 */
export function jsonObjectBody(text: string, invalid: (message: string) => Error): Record<string, unknown> {
  let body: unknown;
  try {
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw invalid('The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}
