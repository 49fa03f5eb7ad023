/** The packages the MCP server needs (optional peers of `@ultimat3/jobs`), as the fix installs them. */
export const MCP_PEERS: readonly string[] = ['@modelcontextprotocol/sdk', 'zod'];

/** The tools every server offers: they read the projection and change nothing. */
export const MCP_READ_TOOLS = [
  'list_queues',
  'list_jobs',
  'inspect_job',
  'list_dead_letters',
  'list_workers',
  'list_tasks',
] as const;

/** The tools a server offers only when built with `allowWrites: true`. */
export const MCP_WRITE_TOOLS = [
  'retry_job',
  'cancel_job',
  'pause_queue',
  'resume_queue',
  'pause_task',
  'resume_task',
] as const;
