import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { OptionalPeerMissingError } from '../errors/declaration-errors';
import type { McpOperator } from './mcp-operator';
import { MCP_PEERS } from './mcp-names';
import { buildSdkMcpServer } from './mcp-sdk-server';
import type { JobsMcpServerOptions } from './mcp-server';

/** Options of {@link serveMcpStdio}. */
export interface McpStdioOptions extends JobsMcpServerOptions {
  /** Where a line about the server goes (stderr: stdout carries only the protocol). */
  readonly note?: (text: string) => void;
  /** Where the protocol is read from (default `process.stdin`). */
  readonly stdin?: NodeJS.ReadableStream & { pause(): unknown };
  /** Where the protocol is written (default `process.stdout`). */
  readonly stdout?: NodeJS.WritableStream;
}

function loadStdioTransport(): typeof StdioServerTransport {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const sdk = require('@modelcontextprotocol/sdk/server/stdio.js') as {
      StdioServerTransport?: typeof StdioServerTransport;
    };
    if (typeof sdk.StdioServerTransport !== 'function')
      throw new TypeError('no StdioServerTransport');
    return sdk.StdioServerTransport;
  } catch (cause) {
    throw new OptionalPeerMissingError('The MCP server', MCP_PEERS, cause);
  }
}

/**
 * Serves the operator tools over stdio (the process's own stdin/stdout by default) and resolves once the session
 * ends: the client closed stdin, or the process got SIGINT / SIGTERM. The caller closes its backend afterwards.
 */
export async function serveMcpStdio(
  operator: McpOperator,
  options: McpStdioOptions = {},
): Promise<void> {
  const Transport = loadStdioTransport();
  const server = buildSdkMcpServer(operator, options);
  const stdin = options.stdin ?? process.stdin;
  const transport = new Transport(
    stdin as ConstructorParameters<typeof StdioServerTransport>[0],
    (options.stdout ?? process.stdout) as ConstructorParameters<typeof StdioServerTransport>[1],
  );
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const stop = (): void => void server.close();
  stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await server.connect(transport);
    options.note?.(
      `x mcp: serving the operator tools over stdio (${options.allowWrites === true ? 'writes allowed' : 'read-only'})`,
    );
    await closed;
  } finally {
    stdin.off('end', stop);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
