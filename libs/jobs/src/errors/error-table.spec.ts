import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  collectErrorClasses,
  librarySources,
  type SourceText,
} from '../../../../scripts/docs/error-classes';
import {
  REPO_ROOT,
  errorCodeMismatches,
  errorTableOf,
  readErrorTableBlock,
  withErrorTable,
} from '../../../../scripts/docs/error-codes';
import * as jobs from '../index';
import * as jobsPg from '../../../jobs-pg/src/index';

/** '' when the README holds `expected`, else what a reader needs: the command, and the lines that differ. */
function staleness(readme: string, expected: string): string {
  const actual = readErrorTableBlock(readme);
  if (actual === expected) return '';
  const have = new Set(actual.split('\n'));
  const want = new Set(expected.split('\n'));
  const diff = [
    ...[...have].filter((l) => !want.has(l)).map((l) => `- ${l}`),
    ...[...want].filter((l) => !have.has(l)).map((l) => `+ ${l}`),
  ];
  return `README.md's error code table differs from the error classes: run \`npm run docs:errors\`.\n${diff.join('\n')}`;
}

const source = (path: string, text: string): SourceText => ({ path, text });

describe('the error code table', () => {
  it("README.md's table is what `npm run docs:errors` writes from the error classes", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(staleness(readme, errorTableOf())).toBe('');
  });

  it('every JobsErrorCode has a class, and every class carries a code of the union', () => {
    expect(errorCodeMismatches()).toEqual({ withoutClass: [], notInUnion: [] });
  });

  it('every class in the table is exported from its package root', () => {
    const roots: Record<string, unknown> = { ...jobs, ...jobsPg };
    const classes = collectErrorClasses(librarySources(REPO_ROOT)).map((c) => c.className);
    expect(classes.filter((name) => typeof roots[name] !== 'function')).toEqual([]);
  });
});

describe('the generator', () => {
  it('reads a literal code, each branch of a conditional one, the parent’s for a subclass, and the first sentence', () => {
    const classes = collectErrorClasses([
      source(
        'a.ts',
        `/** The widget broke. Replace it ({@link Widget}). */
        export class WidgetError extends JobsError {
          constructor() { super('X_WIDGET', 'broke'); }
        }
        /** Gone or late: \`at.time\` passed. Retry. */
        export class GoneError extends JobsError {
          constructor(late: boolean) { super(late ? 'X_LATE' : ('X_GONE' as const), 'gone'); }
        }
        /** A widget error with more facts. */
        export class BigWidgetError extends WidgetError {}
        class HiddenError extends JobsError { constructor() { super('X_HIDDEN', 'h'); } }
        export class Unrelated extends Map {}`,
      ),
    ]);
    expect(classes.map((c) => [c.className, c.codes, c.summary])).toEqual([
      ['GoneError', ['X_LATE', 'X_GONE'], 'Gone or late: `at.time` passed.'],
      ['BigWidgetError', ['X_WIDGET'], 'A widget error with more facts.'],
      ['WidgetError', ['X_WIDGET'], 'The widget broke.'],
    ]);
  });

  it('refuses a class that computes its code, naming the class and its file', () => {
    const dynamic = source(
      'libs/x/src/dynamic.ts',
      `export class DynamicError extends JobsError {
        constructor(code: JobsErrorCode) { super(code, 'm'); }
      }`,
    );
    expect(() => collectErrorClasses([dynamic])).toThrow(
      /libs\/x\/src\/dynamic\.ts: DynamicError does not pass its code to super\(\) as a string literal/,
    );
  });

  it('rewrites only what lies between the markers, and finds no block as an error', () => {
    const readme = 'intro\n<!-- error-codes:start -->\nold\n<!-- error-codes:end -->\noutro\n';
    const written = withErrorTable(readme, '| a |');
    expect(written).toBe(
      'intro\n<!-- error-codes:start -->\n\n| a |\n\n<!-- error-codes:end -->\noutro\n',
    );
    expect(readErrorTableBlock(written)).toBe('| a |');
    expect(() => readErrorTableBlock('no block')).toThrow(/error-codes:start/);
  });
});
