import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';

/**
 * An HTTP server for the app whose request and response objects are born with Express's prototypes.
 *
 * Express gives every request and response its own prototype (`Object.setPrototypeOf`) as it starts handling them.
 * Changing an object's prototype throws V8 off its fast paths for that object, and Node's own HTTP code then pays on
 * every property it touches. Here the server creates them from classes whose prototypes sit on top of Express's
 * request and response objects, and the app is told to use exactly those prototypes: Express's call then changes
 * nothing, and the objects stay fast.
 */
export function createHttpServer(app: Express): http.Server {
  class Request extends http.IncomingMessage {}
  class Response extends http.ServerResponse {}
  // Request.prototype -> Express's request (its methods) -> http.IncomingMessage.prototype; likewise for responses.
  Object.setPrototypeOf(Request.prototype, app.request);
  Object.setPrototypeOf(Response.prototype, app.response);
  app.request = Request.prototype as unknown as typeof app.request;
  app.response = Response.prototype as unknown as typeof app.response;
  const server = http.createServer({ IncomingMessage: Request, ServerResponse: Response }, app);
  server.on('clientError', answerUnparsable);
  return server;
}

/**
 * Requests Node's own parser refuses never reach the app: headers over its limit (431), bytes after a body longer
 * than its Content-Length, a malformed request line (400). Node answers those with an empty body; this answers with
 * the error envelope, then closes the connection (what follows on it cannot be trusted).
 */
function answerUnparsable(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'PAYLOAD_TOO_LARGE', 'The request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'VALIDATION_ERROR', 'The request was not received in time']
        : [400, 'Bad Request', 'VALIDATION_ERROR', 'The request is not valid HTTP (a body longer than its Content-Length, or a malformed line)'];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
