import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { OptionalPeerMissingError } from '../errors/declaration-errors';
import type { McpOperator } from './mcp-operator';
import { MCP_PEERS } from './mcp-names';
import { buildSdkMcpServer } from './mcp-sdk-server';
import type { JobsMcpServerOptions } from './mcp-server';

function loadHttpTransport(): typeof StreamableHTTPServerTransport {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const sdk = require('@modelcontextprotocol/sdk/server/streamableHttp.js') as {
      StreamableHTTPServerTransport?: typeof StreamableHTTPServerTransport;
    };
    if (typeof sdk.StreamableHTTPServerTransport !== 'function') {
      throw new TypeError('no StreamableHTTPServerTransport');
    }
    return sdk.StreamableHTTPServerTransport;
  } catch (cause) {
    throw new OptionalPeerMissingError('The MCP server', MCP_PEERS, cause);
  }
}

/** A JSON-RPC error answered without a server (a method stateless MCP does not serve). */
function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json', allow: 'POST' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Answers one streamable HTTP request of an MCP client, statelessly: each POST builds a server over `operator`,
 * answers its JSON-RPC message(s) as JSON, and closes it with the response (no session to resume, nothing held
 * between requests). GET (a server-initiated stream) and DELETE (ending a session) are 405: there are none.
 * `body` is the request's parsed JSON when the platform already read it (Nest / Express do).
 */
export async function handleMcpHttp(
  operator: McpOperator,
  options: JobsMcpServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
  body?: unknown,
): Promise<void> {
  if (request.method !== 'POST') {
    refuse(response, 405, 'This MCP endpoint is stateless: send each message as a POST.');
    return;
  }
  const Transport = loadHttpTransport();
  const server = buildSdkMcpServer(operator, options);
  const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}

/** Options of {@link mcpAdminRoute}. */
export interface McpAdminRouteOptions {
  /** The route's segment: it is served at `<admin path>/ext/<name>` (default `mcp`). */
  readonly name?: string;
  /**
   * Offer the write tools to a caller the admin module's `canWrite(request)` allows (default false: read-only for
   * everyone). A caller `canWrite` refuses gets the read tools only, whatever this says.
   */
  readonly allowWrites?: boolean;
}

/** What the admin module hands an extension route (structurally its `JobsAdminRouteContext`). */
export interface McpRouteContext {
  /** The raw request (its parsed `body`, when the platform parsed one). */
  readonly request: IncomingMessage & { readonly body?: unknown };
  /** The platform's response; the route writes and ends it. */
  readonly response: ServerResponse;
  /** The operator projection (the app's `JobsService`). */
  readonly jobs: McpOperator;
  /** `canWrite(request)`'s answer for this request. */
  readonly canWrite: boolean;
}

/** The MCP endpoint as an admin extension route (structurally a `JobsAdminRoute`). */
export interface McpAdminRoute {
  /** The route's segment, served at `<admin path>/ext/<name>`. */
  readonly name: string;
  /** Serves one MCP streamable-HTTP request. */
  handle(context: McpRouteContext): Promise<void>;
}

/**
 * The MCP tools over streamable HTTP, mounted beside the admin page and behind its guard:
 *
 * ```ts
 * JobsAdminModule.forRoot({ guard: OpsGuard, canWrite, routes: [mcpAdminRoute({ allowWrites: true })] })
 * ```
 *
 * serves `/_x/jobs/ext/mcp`. A request the guard refuses never reaches it; the write tools are offered to a request
 * only when `allowWrites` is set and `canWrite(request)` allows it.
 */
export function mcpAdminRoute(options: McpAdminRouteOptions = {}): McpAdminRoute {
  const allowWrites = options.allowWrites === true;
  return {
    name: options.name ?? 'mcp',
    handle: ({ request, response, jobs, canWrite }) =>
      handleMcpHttp(
        jobs,
        { allowWrites: allowWrites && canWrite },
        request,
        response,
        request.body,
      ),
  };
}
