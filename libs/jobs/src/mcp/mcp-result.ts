import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorCodeOf } from '../errors/jobs-error';

/** A tool's answer: the projection's JSON as the one text block (what `x … --json` prints). */
export function jsonResult(view: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(view, null, 2) }] };
}

/**
 * A refused call as a tool error the assistant reads: `{ error: { code, message, fix } }`, the shape `x --json` prints
 * on stderr, so the `X_…` code and its fix reach the model rather than a stack.
 */
export function errorResult(error: unknown): CallToolResult {
  const code = errorCodeOf(error) ?? null;
  const fix = (error as { fix?: unknown } | null)?.fix;
  const raw = error instanceof Error ? error.message : String(error);
  const tail = typeof fix === 'string' ? ` Fix: ${fix}` : '';
  const message = tail !== '' && raw.endsWith(tail) ? raw.slice(0, -tail.length) : raw;
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          error: { code, message, fix: typeof fix === 'string' ? fix : null },
        }),
      },
    ],
  };
}

/** Runs one projection call: its JSON, or the refusal as a coded tool error. */
export async function answer(run: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return jsonResult(await run());
  } catch (error) {
    return errorResult(error);
  }
}
