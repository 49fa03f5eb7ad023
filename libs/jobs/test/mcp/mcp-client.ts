import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** The text of a tool answer's first block. */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as readonly { type: string; text?: string }[];
  const first = content[0];
  if (first?.type !== 'text' || first.text === undefined)
    throw new Error('a tool answer with no text');
  return first.text;
}

/** Calls a tool that must answer: its projection JSON, parsed. */
export async function callJson<T>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  const text = textOf(result);
  if (result.isError === true) throw new Error(`${name} refused: ${text}`);
  return JSON.parse(text) as T;
}

/** Calls a tool that must refuse: the error text the client got. */
export async function callRefused(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const text = textOf(result);
  if (result.isError !== true) throw new Error(`${name} answered instead of refusing: ${text}`);
  return text;
}

/** The names of the tools the server lists, sorted. */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}
