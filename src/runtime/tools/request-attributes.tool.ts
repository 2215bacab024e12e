import { withoutCredentials } from '../../core/request-metadata';
import { defineTool } from './define-tool';

const text = (value: unknown): string =>
  value === undefined || value === null ? 'None' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * `current_request_attributes` (NAT's tool of that name): the request that started the run, as one line
 * with NAT's labels (method, path, headers, query, client, cookies, conversation id) and the tool's own
 * input as `Request Body` (the JSON body when a `general.front_end.endpoints` route serves it). What
 * Interlude does not carry (scheme, path parameters, client port) reads `None`. Credentials (the
 * Authorization, Cookie and API-key headers, cookies) are left out: a tool's result is kept with the run.
 */
export const requestAttributesTool = defineTool({
  type: 'current_request_attributes',
  description: 'Returns the acquired user defined request attributes.',
  parameters: { type: 'object' },
  run: (args, ctx) => {
    const request = withoutCredentials(ctx.request);
    return [
      `Method: ${text(request.method)}`,
      `URL Path: ${text(request.path)}`,
      'URL Scheme: None',
      `Headers: ${text(request.headers)}`,
      `Query Params: ${text(request.query)}`,
      'Path Params: None',
      `Client Host: ${text(request.clientAddress)}`,
      'Client Port: None',
      `Cookies: ${text(request.cookies)}`,
      `Conversation Id: ${text(ctx.trace.conversationId)}`,
      `Request Body: ${text(args)}`,
    ].join(', ');
  },
});
