export { mcpOperatorOver, type McpOperator, type McpOperatorSource } from './mcp-operator';
export {
  buildJobsMcpServer,
  loadMcpPeers,
  MCP_PEERS,
  type JobsMcpServerOptions,
} from './mcp-server';
export { MCP_READ_TOOLS, MCP_WRITE_TOOLS } from './mcp-tools';
export { serveMcpStdio, type McpStdioOptions } from './mcp-stdio';
export {
  handleMcpHttp,
  mcpAdminRoute,
  type McpAdminRoute,
  type McpAdminRouteOptions,
  type McpRouteContext,
} from './mcp-http';
