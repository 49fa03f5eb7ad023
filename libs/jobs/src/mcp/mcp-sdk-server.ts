import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OptionalPeerMissingError } from '../errors/declaration-errors';
import type { McpOperator } from './mcp-operator';
import { MCP_PEERS } from './mcp-names';
import { mcpSchemas, type ZodModule } from './mcp-schemas';
import type { JobsMcpServerOptions } from './mcp-server';
import { registerReadTools, registerWriteTools } from './mcp-tools';

/*
 * The SDK-typed half of the MCP server. Nothing the package root exports names a type from this file: an app's
 * compiler never reads the SDK's or zod's declarations unless the app installs them (`skipLibCheck: false` included).
 */

export interface McpPeers {
  readonly McpServer: typeof McpServer;
  readonly z: ZodModule;
}

/**
 * Loads the MCP SDK and zod the first time a server is built, never at import: both are optional peers, and an app
 * without MCP loads `@ultimat3/jobs` without them (`X_PEER_MISSING` names them otherwise).
 */
export function loadMcpPeers(): McpPeers {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const sdk = require('@modelcontextprotocol/sdk/server/mcp.js') as Partial<McpPeers>;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const z = require('zod/v4') as ZodModule;
    if (typeof sdk.McpServer !== 'function' || typeof z.strictObject !== 'function') {
      throw new TypeError('McpServer or zod 4 is missing');
    }
    return { McpServer: sdk.McpServer, z };
  } catch (cause) {
    throw new OptionalPeerMissingError('The MCP server', MCP_PEERS, cause);
  }
}

/**
 * The SDK's `McpServer` whose tools are the operator projection: `list_queues`, `list_jobs`, `inspect_job`,
 * `list_dead_letters`, `list_workers`, `list_tasks`, and with `allowWrites` also `retry_job`, `cancel_job`,
 * `pause_queue`, `resume_queue`, `pause_task` and `resume_task`. Every answer is the projection's JSON; a refusal is a
 * tool error carrying its `X_…` code. Connect it to a transport: `x mcp` uses stdio, `handleMcpHttp` streamable HTTP.
 */
export function buildSdkMcpServer(
  operator: McpOperator,
  options: JobsMcpServerOptions = {},
): McpServer {
  const peers = loadMcpPeers();
  const server = new peers.McpServer(
    { name: options.name ?? 'ultimat3-jobs', version: '0.1.0' },
    {
      instructions:
        'Operate @ultimat3/jobs: read queues, jobs, dead letters, workers and tasks' +
        (options.allowWrites === true
          ? '; retry or cancel a job, pause or resume a queue.'
          : ' (read-only: no write tools are offered).'),
    },
  );
  const schemas = mcpSchemas(peers.z);
  registerReadTools(server, schemas, operator);
  if (options.allowWrites === true) registerWriteTools(server, schemas, operator);
  return server;
}
