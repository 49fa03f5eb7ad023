export { mcpOperatorOver, type McpOperator, type McpOperatorSource } from './mcp-operator';
export { buildJobsMcpServer, type JobsMcpServer, type JobsMcpServerOptions } from './mcp-server';
export { MCP_PEERS, MCP_READ_TOOLS, MCP_WRITE_TOOLS } from './mcp-names';
export { serveMcpStdio, type McpStdioOptions } from './mcp-stdio';
export {
  handleMcpHttp,
  mcpAdminRoute,
  type McpAdminRoute,
  type McpAdminRouteOptions,
  type McpRouteContext,
} from './mcp-http';
