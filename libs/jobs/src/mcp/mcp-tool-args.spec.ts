import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  claimOf,
  inspectManifest,
  job,
  memoryBackend,
  t,
  task,
  type EnqueueRequest,
  type JobPageView,
  type JobSummaryView,
  type TaskView,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { callJson, callRefused } from '../../test/mcp/mcp-client';
import { enqueueRequest } from '../../test/requests';
import { mcpOperatorOver, type McpOperatorSource } from './mcp-operator';
import { buildJobsMcpServer } from './mcp-server';

const SECRET = 'hunter2-mcp-args';

const mcpArgsCharge = job({
  name: 'mcp-args.charge',
  queue: 'mcp-args',
  input: t.object({ order: t.string, secret: t.string }),
  idempotencyKey: ({ order }) => order,
  tenant: 'none',
  retry: { attempts: 1 },
  redact: ['secret'],
  run: () => Promise.resolve(),
});

const mcpArgsNightly = task({
  name: 'mcp-args.nightly',
  cron: '0 3 * * *',
  tz: 'UTC',
  enqueue: (occurrenceMs) => [[mcpArgsCharge, { order: `n:${occurrenceMs}`, secret: '-' }]],
});

/**
 * Every argument a tool takes reaches the projection, and the server answers with what it was built over (the app's
 * declarations, its clock): an argument dropped on the way would still answer, only wrongly.
 */
describe('MCP tools: arguments and what the server was built over', () => {
  const clock = frozenClock();
  const backend = memoryBackend({ clock });
  const { driver } = backend;
  const declarations = inspectManifest({ jobs: [mcpArgsCharge], tasks: [mcpArgsNightly] });
  const clients: Client[] = [];

  async function connect(source: Partial<McpOperatorSource> = {}): Promise<Client> {
    const server = buildJobsMcpServer(mcpOperatorOver({ driver, clock, ...source }), {
      allowWrites: true,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'mcp-tool-args-spec', version: '1.0.0' });
    await client.connect(clientSide);
    clients.push(client);
    return client;
  }
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await backend.close();
  });

  /** A request due at once on the frozen clock (the builder's default run time is the wall clock's now). */
  const due = (overrides: Partial<EnqueueRequest>) => enqueueRequest({ runAt: 0, ...overrides });

  /** Claims one row of `queue`: it is running. */
  async function claimOne(queue: string) {
    const [claimed] = await driver.claim({
      workerId: 'mcp-args',
      slots: [{ queue, limit: 1 }],
      visibilityTimeoutMs: 60_000,
    });
    return claimed!;
  }

  it('list_jobs keeps only the rows in the state asked for', async () => {
    await driver.enqueueMany([1, 2].map(() => due({ queue: 'mcp-args-state' })));
    const running = await claimOne('mcp-args-state');
    const client = await connect();
    const page = await callJson<JobPageView>(client, 'list_jobs', {
      queue: 'mcp-args-state',
      state: 'running',
    });
    expect(page.jobs.map((j) => j.id)).toEqual([running.id]);
  });

  it('list_jobs and list_dead_letters narrow by tenant, job name and id prefix', async () => {
    const queue = 'mcp-args-page';
    const rows = [
      due({ queue, name: 'mcp-args.a', tenantId: 'acme', maxAttempts: 1 }),
      due({ queue, name: 'mcp-args.b', tenantId: 'acme', maxAttempts: 1 }),
      due({ queue, name: 'mcp-args.a', tenantId: null, maxAttempts: 1 }),
    ];
    await driver.enqueueMany(rows);
    for (let i = 0; i < rows.length; i += 1) {
      const claimed = await claimOne(queue);
      await driver.nack(claimed.id, { ...claimOf(claimed), kind: 'dead', error: 'X_BOOM: no' });
    }
    const [a, b, c] = rows.map((r) => r.id);
    const client = await connect();
    for (const tool of ['list_jobs', 'list_dead_letters']) {
      const ids = async (args: Record<string, unknown>) =>
        (await callJson<JobPageView>(client, tool, { queue, ...args })).jobs
          .map((j) => j.id)
          .sort();
      expect(await ids({ tenantId: 'acme' })).toEqual([a, b].sort());
      expect(await ids({ name: 'mcp-args.a' })).toEqual([a, c].sort());
      expect(await ids({ idPrefix: b!.slice(0, 32) })).toEqual([b]);
    }
  });

  it('cancel_job keeps the reason on the row', async () => {
    const { id } = await driver.enqueue(due({ queue: 'mcp-args-cancel' }));
    const client = await connect();
    const cancelled = await callJson<JobSummaryView>(client, 'cancel_job', {
      id,
      reason: 'runaway loop',
    });
    expect(cancelled).toMatchObject({ id, state: 'cancelled', lastError: 'runaway loop' });
    expect((await driver.get(id))?.lastError).toBe('runaway loop');
  });

  it('a refusal states its fix once, in fix, not again at the end of the message', async () => {
    const client = await connect();
    const refused = JSON.parse(
      await callRefused(client, 'inspect_job', { id: '01900000-0000-7000-8000-000000000000' }),
    ) as { error: { code: string; message: string; fix: string } };
    expect(refused.error.code).toBe('X_JOB_NOT_FOUND');
    expect(refused.error.fix).not.toBe('');
    expect(refused.error.message).not.toContain('Fix:');
    expect(refused.error.message).not.toContain(refused.error.fix);
  });

  it("list_jobs scrubs a secret the failure carried, given the app's declarations", async () => {
    const input = { order: 'mcp-args-1', secret: SECRET };
    const { id } = await driver.enqueue(
      due({ queue: 'mcp-args', name: 'mcp-args.charge', input, maxAttempts: 1 }),
    );
    const claimed = await claimOne('mcp-args');
    await driver.nack(id, { ...claimOf(claimed), kind: 'dead', error: `declined ${SECRET}` });
    const listed = (client: Client) =>
      callJson<JobPageView>(client, 'list_jobs', { queue: 'mcp-args' });

    const scrubbed = await listed(await connect({ declarations }));
    expect(scrubbed.jobs.map((j) => j.id)).toEqual([id]);
    expect(JSON.stringify(scrubbed)).not.toContain(SECRET);
    expect(JSON.stringify(await listed(await connect()))).toContain(SECRET);
  });

  it("list_tasks counts a task's next run from the server's clock", async () => {
    const [nightly] = await callJson<TaskView[]>(await connect({ declarations }), 'list_tasks');
    const day = clock.now() - (clock.now() % 86_400_000);
    expect(nightly).toMatchObject({ name: 'mcp-args.nightly', next: day + 3 * 3_600_000 });
  });
});
