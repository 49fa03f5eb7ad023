import type { Command } from 'commander';
import { MAX_NEXT_TASK_RUNS, nextTaskRuns } from '../../operator/tasks';
import type { CliCommand } from '.';
import { when } from '../output';
import { parseAtMost } from '../parse';

/** `x tasks next <task>`: its next occurrences by the scheduler's own resolver; needs `--app` or `--manifest`. */
export const tasksNext: CliCommand = {
  group: 'tasks',
  register(parent, cli) {
    parent
      .command('next')
      .description("a declared task's next occurrences (no database needed)")
      .argument('<task>', 'the task name')
      .option(
        '--count <n>',
        `how many (default 1, at most ${MAX_NEXT_TASK_RUNS})`,
        parseAtMost(MAX_NEXT_TASK_RUNS),
      )
      .action((name: string, _flags: unknown, command: Command) => {
        const { count } = cli.options<{ count?: number }>(command);
        const runs = nextTaskRuns(cli.requireDeclarations(command), name, {
          clock: cli.clock,
          count: count ?? 1,
        });
        cli.print(command, { task: name, next: runs }, () => runs.map((ms) => when(ms)).join('\n'));
      });
  },
};
