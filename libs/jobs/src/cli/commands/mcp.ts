import type { Command } from 'commander';
import type { CliCommand } from '.';
import { mcpOperatorOver } from '../../mcp/mcp-operator';
import { loadMcpPeers } from '../../mcp/mcp-sdk-server';
import { serveMcpStdio } from '../../mcp/mcp-stdio';

/**
 * `x mcp [--allow-writes]`: an MCP server on stdin/stdout whose tools are the operator projection over the backend
 * `--url` names (with `--app` / `--manifest`, inputs are redacted and tasks show their schedule). Read-only unless
 * `--allow-writes`. Runs until the client closes stdin (or SIGINT / SIGTERM); stdout carries only the protocol.
 */
export const mcp: CliCommand = {
  group: null,
  register(parent, cli) {
    parent
      .command('mcp')
      .description('serve the operator tools to an AI assistant over MCP (stdio)')
      .option(
        '--allow-writes',
        'also offer retry_job, cancel_job, pause_queue, resume_queue, pause_task and resume_task',
      )
      .action(async (_flags: unknown, command: Command) => {
        const { allowWrites } = cli.options<{ allowWrites?: boolean }>(command);
        loadMcpPeers(); // X_PEER_MISSING before anything is opened
        const declarations = cli.declarations(command);
        const { driver, backfills } = await cli.backend(command);
        const operator = mcpOperatorOver({
          driver,
          clock: cli.clock,
          ...(declarations === undefined ? {} : { declarations }),
          ...(backfills === undefined ? {} : { backfills }),
        });
        await serveMcpStdio(operator, {
          allowWrites: allowWrites === true,
          note: (text) => cli.environment.streams.err(text),
        });
      });
  },
};
