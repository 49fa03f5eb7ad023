import type * as Zod from 'zod/v4';
import { FINISHED_STATES, LIVE_STATES } from '../driver/job-row';

/** The `zod/v4` module (zod 4, or zod 3.25's v4 API), loaded with the MCP SDK only when a server is built. */
export type ZodModule = typeof Zod;

const STATES = [...LIVE_STATES, ...FINISHED_STATES] as const;

/** A refusal the SDK reports as the tool's error text: it starts with the code, then says what was expected. */
const coded = (what: string) => (): string => `X_VALUE_INVALID: ${what}`;

/**
 * The input schemas of the tools, built over the given `zod`. Each argument's own refusal names the `X_VALUE_INVALID`
 * code (the SDK adds `at <argument>`); an argument the tool does not take is refused too. Bounds (page size, cursor
 * shape, id prefix) are the projection's own checks, which answer their own codes.
 */
export function mcpSchemas(z: ZodModule) {
  const text = (what: string, description: string) =>
    z.string({ error: coded(`${what} must be a string`) }).describe(description);
  const instant = (what: string, description: string) =>
    z
      .union([z.number().int(), z.string()], {
        error: coded(`${what} must be an ISO 8601 instant or epoch milliseconds`),
      })
      .describe(description);
  const args = <S extends Zod.ZodRawShape>(shape: S) =>
    z.strictObject(shape, {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `X_VALUE_INVALID: this tool takes no argument ${issue.keys.join(', ')}`
          : 'X_VALUE_INVALID: the arguments must be an object',
    });
  const page = {
    queue: text('queue', 'only rows of this queue').optional(),
    name: text('name', 'only rows of this job name').optional(),
    tenantId: text('tenantId', 'only rows of this tenant').optional(),
    idPrefix: text(
      'idPrefix',
      'only rows whose id starts with it (lower-case, dashes where a UUID has them)',
    ).optional(),
    createdFrom: instant('createdFrom', 'only rows created at or after it').optional(),
    createdTo: instant('createdTo', 'only rows created before it').optional(),
    limit: z
      .number({ error: coded('limit must be a whole number') })
      .int({ error: coded('limit must be a whole number') })
      .describe('rows per page (default 100, at most 200)')
      .optional(),
    after: text('after', "the page after this cursor (the previous answer's `next`)").optional(),
    before: text('before', "the page before this cursor (an answer's `previous`)").optional(),
  };
  const id = text('id', 'the job id');
  return {
    none: args({}),
    listJobs: args({
      state: z
        .enum(STATES, { error: coded(`state must be one of ${STATES.join(', ')}`) })
        .describe('only rows in this state')
        .optional(),
      ...page,
    }),
    deadLetters: args(page),
    job: args({ id }),
    retry: args({
      id,
      fromStep: text(
        'fromStep',
        'drop this step and every later one, so the run redoes them (earlier steps replay from storage)',
      ).optional(),
    }),
    cancel: args({
      id,
      reason: text('reason', 'why, kept on the row').optional(),
    }),
    queue: args({ queue: text('queue', 'the queue name') }),
    task: args({ task: text('task', 'the task name') }),
  };
}

/** The schemas {@link mcpSchemas} builds. */
export type McpSchemas = ReturnType<typeof mcpSchemas>;
