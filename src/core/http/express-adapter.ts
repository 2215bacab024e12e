import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

/**
 * Nest's Express adapter, with a server whose requests and responses are born with Express's
 * prototypes. Express gives every request and response its prototype (`Object.setPrototypeOf`) as it
 * arrives; V8 then treats each of them as a new kind of object, and every later property access on
 * them misses its caches. Created with that prototype already, they keep one shape: a bare Express
 * JSON route measured about 3× less CPU per request here (bench/RESULTS.md). Express's own
 * `setPrototypeOf` then finds the prototype in place and does nothing.
 */
export class InterludeExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) {
      return super.initHttpServer(options);
    }
    const app = this.getInstance<Express>();
    this.httpServer = createServer(
      { IncomingMessage: requestClass(app), ServerResponse: responseClass(app) },
      app,
    );
  }
}

/** node:http's IncomingMessage, made with the app's request prototype (Express's `req` methods). */
function requestClass(app: Express): typeof IncomingMessage {
  function ExpressRequest(this: IncomingMessage, socket: IncomingMessage['socket']) {
    IncomingMessage.call(this, socket);
  }
  ExpressRequest.prototype = app.request;
  return ExpressRequest as unknown as typeof IncomingMessage;
}

/** node:http's ServerResponse, made with the app's response prototype (`res.json`, `res.status`, …). */
function responseClass(app: Express): typeof ServerResponse {
  function ExpressResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    Reflect.apply(ServerResponse, this, [req, options]);
  }
  ExpressResponse.prototype = app.response;
  return ExpressResponse as unknown as typeof ServerResponse;
}
