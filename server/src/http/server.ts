import http from 'node:http';
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
  return http.createServer({ IncomingMessage: Request, ServerResponse: Response }, app);
}
