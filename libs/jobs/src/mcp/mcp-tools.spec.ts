import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  listJobs,
  memoryBackend,
  uuidv7,
  type EnqueueRequest,
  type JobPageView,
  type QueueView,
  type TaskView,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { callJson, callRefused } from '../../test/mcp/mcp-client';
import { mcpOperatorOver } from './mcp-operator';
import { buildJobsMcpServer } from './mcp-server';
import { enqueueRequest } from '../../test/requests';

function request(queue: string, n: number): EnqueueRequest {
  const id = uuidv7();
  return enqueueRequest({
    id,
    name: 'mcp.seeded',
    queue,
    input: { n },
    idempotencyKey: `mcp:${id}`,
    runAt: 0,
    maxAttempts: 1,
  });
}

/** The tools' input checks and refusals, through the SDK's own client over an in-memory transport. */
describe('MCP tools: inputs and refusals', () => {
  const clock = frozenClock();
  const backend = memoryBackend({ clock });
  const operator = mcpOperatorOver({ driver: backend.driver, clock });
  let client: Client;

  beforeAll(async () => {
    await backend.driver.enqueueMany([1, 2, 3].map((n) => request('mcp-tools', n)));
    const server = buildJobsMcpServer(operator, { allowWrites: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'mcp-tools-spec', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
    await backend.close();
  });

  it('answers exactly the projection', async () => {
    expect(await callJson<QueueView[]>(client, 'list_queues')).toEqual(
      JSON.parse(JSON.stringify(await operator.inspectQueues())),
    );
    expect(await callJson<TaskView[]>(client, 'list_tasks')).toEqual([]);
    expect(await callJson(client, 'list_workers')).toEqual([]);
    const filter = { queue: 'mcp-tools', limit: 2 };
    expect(await callJson<JobPageView>(client, 'list_jobs', filter)).toEqual(
      JSON.parse(JSON.stringify(await listJobs(backend.driver, filter))),
    );
  });

  it('pauses and resumes a task, which list_tasks then shows', async () => {
    // a name nothing knows (no declarations here, no fire, no pause) is refused, and nothing is paused
    const refused = await callRefused(client, 'pause_task', { task: 'mcp.nightly' });
    expect(JSON.parse(refused)).toEqual({
      error: {
        code: 'X_TASK_NOT_FOUND',
        message: expect.stringContaining('"mcp.nightly"'),
        fix: expect.any(String),
      },
    });
    expect(await backend.driver.introspect?.pausedTasks()).toEqual([]);
    await backend.driver.introspect?.recordTaskFire({
      task: 'mcp.nightly',
      occurrenceMs: clock.now(),
    });
    expect(await callJson(client, 'pause_task', { task: 'mcp.nightly' })).toEqual({
      task: 'mcp.nightly',
      paused: true,
    });
    expect(await backend.driver.introspect?.pausedTasks()).toEqual(['mcp.nightly']);
    const [listed] = await callJson<TaskView[]>(client, 'list_tasks');
    expect(listed).toMatchObject({ name: 'mcp.nightly', declared: false, paused: true });
    expect(await callJson(client, 'resume_task', { task: 'mcp.nightly' })).toEqual({
      task: 'mcp.nightly',
      paused: false,
    });
    expect(await backend.driver.introspect?.pausedTasks()).toEqual([]);
  });

  it('reads an ISO 8601 instant or epoch ms as a creation bound', async () => {
    const all = await callJson<JobPageView>(client, 'list_jobs', {
      createdFrom: new Date(clock.now()).toISOString(),
    });
    expect(all.jobs).toHaveLength(3);
    const none = await callJson<JobPageView>(client, 'list_jobs', { createdTo: clock.now() });
    expect(none.jobs).toHaveLength(0);
  });

  it.each([
    ['list_jobs', { limit: 'ten' }, 'limit must be a whole number'],
    ['list_jobs', { limit: 2.5 }, 'limit must be a whole number'],
    ['list_jobs', { state: 'sleeping' }, 'state must be one of ready, delayed'],
    ['list_jobs', { colour: 'red' }, 'this tool takes no argument colour'],
    ['list_jobs', { createdFrom: 'last tuesday' }, 'createdFrom is not an ISO 8601 instant'],
    ['list_dead_letters', { state: 'done' }, 'this tool takes no argument state'],
    ['inspect_job', {}, 'id must be a string'],
    ['inspect_job', { id: 42 }, 'id must be a string'],
    ['retry_job', { id: uuidv7(), fromStep: 7 }, 'fromStep must be a string'],
    ['pause_queue', { name: 'x' }, 'queue must be a string'],
    ['pause_task', { name: 'x' }, 'task must be a string'],
    ['resume_task', { task: 3 }, 'task must be a string'],
  ])('%s %j is refused with X_VALUE_INVALID (%s)', async (tool, args, says) => {
    const text = await callRefused(client, tool, args);
    expect(text).toContain('X_VALUE_INVALID');
    expect(text).toContain(says);
  });

  it("reports the projection's own refusal with its code and fix", async () => {
    const missing = uuidv7();
    const text = await callRefused(client, 'inspect_job', { id: missing });
    expect(JSON.parse(text)).toEqual({
      error: {
        code: 'X_JOB_NOT_FOUND',
        message: expect.stringContaining(missing),
        fix: expect.any(String),
      },
    });
    const page = await callRefused(client, 'list_jobs', { after: 'not-a-cursor' });
    expect(JSON.parse(page)).toMatchObject({ error: { code: 'X_JOB_PAGE_INVALID' } });
    const [ready] = (await listJobs(backend.driver, { queue: 'mcp-tools' })).jobs;
    const retry = await callRefused(client, 'retry_job', { id: ready!.id });
    expect(JSON.parse(retry)).toMatchObject({ error: { code: 'X_JOB_NOT_REQUEUEABLE' } });
    expect((await backend.driver.get(ready!.id))?.state).toBe('ready');
  });

  it('lists each input schema with its arguments, and no extra argument allowed', async () => {
    const { tools } = await client.listTools();
    const listJobsTool = tools.find((t) => t.name === 'list_jobs');
    expect(Object.keys(listJobsTool?.inputSchema.properties ?? {}).sort()).toEqual([
      'after',
      'before',
      'createdFrom',
      'createdTo',
      'idPrefix',
      'limit',
      'name',
      'queue',
      'state',
      'tenantId',
    ]);
    expect(listJobsTool?.inputSchema).toMatchObject({ additionalProperties: false });
    expect(tools.find((t) => t.name === 'inspect_job')?.inputSchema.required).toEqual(['id']);
    expect(tools.find((t) => t.name === 'cancel_job')?.annotations?.destructiveHint).toBe(true);
  });
});
