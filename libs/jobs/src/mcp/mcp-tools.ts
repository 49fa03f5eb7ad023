import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type * as Zod from 'zod/v4';
import type { JobListFilter } from '../driver/introspection';
import { ValueInvalidError } from '../errors/value-errors';
import type { McpOperator } from './mcp-operator';
import { answer } from './mcp-result';
import { MCP_READ_TOOLS, MCP_WRITE_TOOLS } from './mcp-names';
export { MCP_READ_TOOLS, MCP_WRITE_TOOLS };
import type { McpSchemas } from './mcp-schemas';

type PageArgs = Zod.output<McpSchemas['deadLetters']>;

/** An instant argument as epoch ms: a number as given, a string read as ISO 8601. */
function instantMs(field: string, value: number | string | undefined): number | undefined {
  if (value === undefined || typeof value === 'number') return value;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new ValueInvalidError(field, 'is not an ISO 8601 instant');
  return ms;
}

/** The page arguments as the projection's filter (absent arguments stay absent). */
function pageFilter(args: PageArgs): Omit<JobListFilter, 'state'> {
  const createdFrom = instantMs('createdFrom', args.createdFrom);
  const createdTo = instantMs('createdTo', args.createdTo);
  const { queue, name, tenantId, idPrefix, limit, after, before } = args;
  const given = { queue, name, tenantId, idPrefix, createdFrom, createdTo, limit, after, before };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Omit<
    JobListFilter,
    'state'
  >;
}

const READ = { readOnlyHint: true, openWorldHint: false } as const;

/** Registers the read tools: each answers the projection's JSON, a refusal its `X_…` code. */
export function registerReadTools(server: McpServer, s: McpSchemas, op: McpOperator): void {
  server.registerTool(
    'list_queues',
    {
      title: 'List queues',
      description:
        'Every queue: rows per state, live rows per job name, the age of the oldest due row (oldestReadyMs) and whether it is paused.',
      inputSchema: s.none,
      annotations: READ,
    },
    () => answer(() => op.inspectQueues()),
  );
  registerJobReadTools(server, s, op);
  server.registerTool(
    'list_workers',
    {
      title: 'List workers',
      description:
        'Every live worker: id, host, pid, queues with their slots, the jobs it runs now and its last heartbeat.',
      inputSchema: s.none,
      annotations: READ,
    },
    () => answer(() => op.inspectWorkers()),
  );
  server.registerTool(
    'list_tasks',
    {
      title: 'List tasks',
      description:
        'Every recurring task: cron and zone, the jobs it enqueues, paused or not, its last fire and next run.',
      inputSchema: s.none,
      annotations: READ,
    },
    () => answer(() => op.inspectTasks()),
  );
}

/** Registers the read tools over jobs themselves: a page of jobs, one job, a page of dead letters. */
function registerJobReadTools(server: McpServer, s: McpSchemas, op: McpOperator): void {
  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description:
        "One page of jobs, newest first, filtered by state, queue, job name, tenant, id prefix and creation time. Pass the answer's `next` as `after` for the following page (null: no more).",
      inputSchema: s.listJobs,
      annotations: READ,
    },
    (args) =>
      answer(() =>
        op.listJobs({
          ...pageFilter(args),
          ...(args.state === undefined ? {} : { state: args.state }),
        }),
      ),
  );
  server.registerTool(
    'inspect_job',
    {
      title: 'Inspect a job',
      description:
        "One job: its row, input (redacted by the app's redact paths), failure with code and stack, progress, and every step with its attempt and duration.",
      inputSchema: s.job,
      annotations: READ,
    },
    (args) => answer(() => op.inspectJob(args.id)),
  );
  server.registerTool(
    'list_dead_letters',
    {
      title: 'List dead letters',
      description:
        'One page of the dead-letter queue (jobs that used every attempt), newest first, with the same filters and cursors as list_jobs.',
      inputSchema: s.deadLetters,
      annotations: READ,
    },
    (args) => answer(() => op.inspectDeadLetters(pageFilter(args))),
  );
}

/** Registers the write tools (only on a server built with `allowWrites: true`). */
export function registerWriteTools(server: McpServer, s: McpSchemas, op: McpOperator): void {
  server.registerTool(
    'retry_job',
    {
      title: 'Retry a job',
      description:
        'Re-queues a finished job (done, failed, dead, cancelled) as a fresh run; with fromStep, that step and every later one are redone. A live job is refused (X_JOB_NOT_REQUEUEABLE).',
      inputSchema: s.retry,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (args) => answer(() => op.retryFromStep(args.id, args.fromStep)),
  );
  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel a job',
      description:
        'Stops a live job (ready, delayed, running, suspended): a running one stops at its next heartbeat. A finished job is refused (X_JOB_NOT_CANCELLABLE).',
      inputSchema: s.cancel,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    (args) => answer(() => op.cancelJob(args.id, args.reason)),
  );
  server.registerTool(
    'pause_queue',
    {
      title: 'Pause a queue',
      description:
        'Pauses a queue: no worker claims from it until resume_queue; enqueues still land. Idempotent. A name no row holds, not paused and no declared job is enqueued on, is refused (X_QUEUE_NOT_FOUND): take names from list_queues.',
      inputSchema: s.queue,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    (args) => answer(() => op.pauseQueue(args.queue)),
  );
  server.registerTool(
    'resume_queue',
    {
      title: 'Resume a queue',
      description:
        'Resumes a paused queue: workers claim from it again. Idempotent. A name nothing knows is refused (X_QUEUE_NOT_FOUND).',
      inputSchema: s.queue,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    (args) => answer(() => op.resumeQueue(args.queue)),
  );
  registerTaskWriteTools(server, s, op);
}

/** Registers the task write tools: pause and resume a recurring task. */
function registerTaskWriteTools(server: McpServer, s: McpSchemas, op: McpOperator): void {
  server.registerTool(
    'pause_task',
    {
      title: 'Pause a task',
      description:
        'Pauses a recurring task: the scheduler dispatches none of its occurrences until resume_task. Idempotent. A name neither declared by the app nor remembered by the backend (a fire or a pause) is refused (X_TASK_NOT_FOUND): take names from list_tasks.',
      inputSchema: s.task,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    (args) => answer(() => op.pauseTask(args.task)),
  );
  server.registerTool(
    'resume_task',
    {
      title: 'Resume a task',
      description:
        "Resumes a paused task: the scheduler dispatches its occurrences again, and the task's catchUp decides what it missed. Idempotent. A name nothing knows is refused (X_TASK_NOT_FOUND).",
      inputSchema: s.task,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    (args) => answer(() => op.resumeTask(args.task)),
  );
}
