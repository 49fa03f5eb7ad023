import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { memoryBackend, MCP_READ_TOOLS, MCP_WRITE_TOOLS } from '@ultimat3/jobs';
import { toolNames } from '../../test/mcp/mcp-client';
import { mcpAdminRoute, type McpAdminRouteOptions } from './mcp-http';
import { mcpOperatorOver } from './mcp-operator';

/**
 * Which tools `mcpAdminRoute` offers: the write tools only when the route allows writes AND the admin module's
 * `canWrite(request)` allows this caller — either alone offers the read tools only. Served by a plain node:http
 * server standing in for the admin module, which hands the route its request, response and `canWrite` answer.
 */
describe('mcpAdminRoute: write tools need allowWrites and canWrite both', () => {
  const backend = memoryBackend();
  const jobs = mcpOperatorOver({ driver: backend.driver });
  const servers: Server[] = [];
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await backend.close();
  });

  /** The tool names a client lists from the route built with `options`, for a caller `canWrite` answers. */
  async function toolsOffered(options: McpAdminRouteOptions, canWrite: boolean): Promise<string[]> {
    const route = mcpAdminRoute(options);
    const server = createServer((request, response) => {
      void route.handle({ request, response, jobs, canWrite });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new Client({ name: 'mcp-admin-route-spec', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/_x/jobs/ext/mcp`)),
    );
    clients.push(client);
    return toolNames(client);
  }

  const READ = [...MCP_READ_TOOLS].sort();
  const ALL = [...MCP_READ_TOOLS, ...MCP_WRITE_TOOLS].sort();

  it.each([
    ['the default route, a caller canWrite allows', {}, true, READ],
    ['allowWrites false, a caller canWrite allows', { allowWrites: false }, true, READ],
    ['allowWrites, a caller canWrite refuses', { allowWrites: true }, false, READ],
    ['allowWrites, a caller canWrite allows', { allowWrites: true }, true, ALL],
  ] as const)('%s', async (_label, options, canWrite, expected) => {
    expect(await toolsOffered(options, canWrite)).toEqual(expected);
  });

  it('is served at ext/mcp unless it is given another name', () => {
    expect(mcpAdminRoute().name).toBe('mcp');
    expect(mcpAdminRoute({ name: 'assistant' }).name).toBe('assistant');
  });
});
