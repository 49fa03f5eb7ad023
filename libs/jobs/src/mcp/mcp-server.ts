import type { McpOperator } from './mcp-operator';
import { buildSdkMcpServer } from './mcp-sdk-server';

export { MCP_PEERS } from './mcp-names';

/** Options of {@link buildJobsMcpServer}. */
export interface JobsMcpServerOptions {
  /**
   * Offer the write tools (`retry_job`, `cancel_job`, `pause_queue`, `resume_queue`, `pause_task`, `resume_task`).
   * Default false: a read-only server does not register them at all, so a client neither lists nor can call them.
   */
  readonly allowWrites?: boolean;
  /** The name the server gives in its handshake (default `ultimat3-jobs`). */
  readonly name?: string;
}

/**
 * The MCP server {@link buildJobsMcpServer} answers: the official SDK's `McpServer`, typed by what it is used for so
 * this package's declarations never name the SDK (an app without it compiles). Cast it to the SDK's `McpServer` to
 * register tools of your own.
 */
export interface JobsMcpServer {
  /** Connects a transport of the SDK (stdio, streamable HTTP, in-memory). */
  connect(transport: object): Promise<void>;
  /** Closes the server and its transport. */
  close(): Promise<void>;
}

/**
 * An MCP server (the official TypeScript SDK's `McpServer`) whose tools are the operator projection: `list_queues`,
 * `list_jobs`, `inspect_job`, `list_dead_letters`, `list_workers`, `list_tasks`, and with `allowWrites` also
 * `retry_job`, `cancel_job`, `pause_queue`, `resume_queue`, `pause_task` and `resume_task`. Every answer is the
 * projection's JSON; a refusal is a tool error carrying its `X_…` code. Connect it to a transport: `x mcp` uses stdio,
 * `handleMcpHttp` streamable HTTP. The SDK and zod are loaded now, not at import (`X_PEER_MISSING` names them when
 * absent).
 */
export function buildJobsMcpServer(
  operator: McpOperator,
  options: JobsMcpServerOptions = {},
): JobsMcpServer {
  return buildSdkMcpServer(operator, options);
}
