import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  job,
  JobsAdminModule,
  JobsModule,
  JobsService,
  mcpAdminRoute,
  MCP_READ_TOOLS,
  MCP_WRITE_TOOLS,
  t,
  type JobSummaryView,
  type JobView,
} from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { callJson, callRefused, toolNames } from '../../test/mcp/mcp-client';

const WRITER = { authorization: 'Bearer mcp-writer' } as const;
const READER = { authorization: 'Bearer mcp-reader' } as const;

/** The app's guard: only the two known callers pass (Nest answers 403 otherwise). */
@Injectable()
class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const auth = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>()
      .headers.authorization;
    return auth === WRITER.authorization || auth === READER.authorization;
  }
}

const healed = { now: false };

/** Two steps, then a failure until healed; one attempt, so it dead-letters. */
const mcpFlaky = job({
  name: 'mcp.flaky',
  queue: 'mcp-http',
  input: t.object({ order: t.string, secret: t.string }),
  idempotencyKey: ({ order }) => order,
  tenant: 'none',
  retry: { attempts: 1 },
  redact: ['secret'],
  run: async ({ step }) => {
    await step.run('fetch', () => 'fetched');
    await step.run('store', () => 'stored');
    if (!healed.now) throw new Error('the provider answered 502');
    return 'ok';
  },
});

/** The MCP tools over streamable HTTP, mounted beside the admin page behind its guard, in a Nest app. */
describe('MCP over streamable HTTP beside the admin page', () => {
  let app: INestApplication;
  let endpoint: URL;
  const clients: Client[] = [];

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: 'memory',
          roles: ['web', 'worker'],
          worker: { pollIntervalMs: 20, idlePollMaxMs: 50 },
        }),
        JobsModule.forFeature({ jobs: [{ mcpFlaky }] }),
        JobsAdminModule.forRoot({
          path: '/_x/jobs',
          guard: BearerGuard,
          canWrite: (request) => request.headers.authorization === WRITER.authorization,
          routes: [mcpAdminRoute({ allowWrites: true })],
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    endpoint = new URL(`http://127.0.0.1:${port}/_x/jobs/ext/mcp`);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await app?.close();
  });

  async function connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'mcp-http-spec', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  it('a writer lists every tool, inspects a dead job and retries it to done', async () => {
    const service = app.get(JobsService);
    const { id } = await mcpFlaky.enqueue({ order: 'mcp-http-1', secret: 'hunter2' });
    await until(async () => (await service.driver.get(id))?.state === 'dead');

    const client = await connect(WRITER);
    expect(await toolNames(client)).toEqual([...MCP_READ_TOOLS, ...MCP_WRITE_TOOLS].sort());
    const dead = await callJson<JobView>(client, 'inspect_job', { id });
    expect(dead).toMatchObject({
      id,
      state: 'dead',
      input: { order: 'mcp-http-1', secret: '[redacted]' },
    });
    expect(dead.steps.map((s) => s.name)).toEqual(['fetch', 'store']);
    expect(dead.failure?.message).toContain('the provider answered 502');

    healed.now = true;
    const requeued = await callJson<JobSummaryView>(client, 'retry_job', { id });
    expect(requeued).toMatchObject({ id, state: 'ready' });
    await until(async () => (await service.driver.get(id))?.state === 'done');
    expect((await callJson<JobView>(client, 'inspect_job', { id })).state).toBe('done');
  });

  it('a caller canWrite refuses gets the read tools only, and a write call is refused', async () => {
    const service = app.get(JobsService);
    healed.now = false;
    const { id } = await mcpFlaky.enqueue({ order: 'mcp-http-2', secret: 's' });
    await until(async () => (await service.driver.get(id))?.state === 'dead');

    const client = await connect(READER);
    expect(await toolNames(client)).toEqual([...MCP_READ_TOOLS].sort());
    expect(await callRefused(client, 'retry_job', { id })).toContain('Tool retry_job not found');
    expect(await callRefused(client, 'pause_queue', { queue: 'mcp-http' })).toContain(
      'Tool pause_queue not found',
    );
    expect((await service.driver.get(id))?.state).toBe('dead');
    expect((await callJson<JobView>(client, 'inspect_job', { id })).state).toBe('dead');
  });

  it('a request the guard refuses is 403 and reaches no tool', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    };
    const refused = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    expect(refused.status).toBe(403);
    await expect(connect({ authorization: 'Bearer someone-else' })).rejects.toThrow(/403/);

    const allowed = await fetch(endpoint, {
      method: 'POST',
      headers: {
        ...READER,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'ultimat3-jobs' } },
    });
  });

  it('answers GET (no server stream in a stateless endpoint) with 405', async () => {
    const response = await fetch(endpoint, { headers: { ...READER, accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
