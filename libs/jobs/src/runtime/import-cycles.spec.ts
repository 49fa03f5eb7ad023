import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The runtime's files import each other in one direction only: the attempt reads top to bottom through helpers that
 * never import it back. This walks every relative import (type-only ones too: a type cycle is still a cycle to read)
 * out of `libs/jobs/src/runtime`, through any folder, and fails on a circle of imports that takes in a runtime file.
 */
const SRC = resolve(__dirname, '..');
const RUNTIME = __dirname;

/** The relative imports and re-exports of a file, resolved to the `.ts` files they name. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  const pattern = /(?:\bfrom\s+|\bimport\s+)'(\.{1,2}\/[^']*)'/g;
  for (const match of text.matchAll(pattern)) {
    const target = resolve(dirname(file), match[1] ?? '');
    const candidates = [`${target}.ts`, join(target, 'index.ts')];
    const hit = candidates.find((candidate) => existsSync(candidate));
    if (hit !== undefined) found.push(hit);
  }
  return found;
}

/**
 * The groups of files that import each other in a circle (strongly connected components, Tarjan's algorithm) among
 * those reachable from `starts`: every cycle lies inside one group. A file importing itself is a group of one.
 */
function circles(
  starts: readonly string[],
  edges: (file: string) => readonly string[],
): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const stacked = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    stacked.add(file);
    for (const next of edges(file)) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (stacked.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      stacked.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1 || edges(file).includes(file)) found.push(group.sort());
  };
  for (const start of starts) if (!index.has(start)) visit(start);
  return found;
}

describe('runtime imports', () => {
  it('finds every circle when there are some (the check can fail)', () => {
    const graph: Record<string, string[]> = {
      a: ['b'],
      b: ['c', 'e'],
      c: ['a'],
      d: ['a', 'd'],
      e: ['f'],
      f: [],
    };
    const edges = (file: string): string[] => graph[file] ?? [];
    expect(circles(['d'], edges)).toEqual([['a', 'b', 'c'], ['d']]);
    expect(circles(['e'], edges)).toEqual([]);
  });

  it('no runtime file imports itself back, directly or through any other file', () => {
    const runtime = readdirSync(RUNTIME)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
      .map((name) => join(RUNTIME, name));
    expect(runtime.length).toBeGreaterThan(10);
    const cache = new Map<string, string[]>();
    const edges = (file: string): string[] => {
      let found = cache.get(file);
      if (found === undefined) cache.set(file, (found = importsOf(file)));
      return found;
    };
    const throughRuntime = circles(runtime, edges)
      .filter((group) => group.some((file) => dirname(file) === RUNTIME))
      .map((group) => group.map((file) => relative(SRC, file)));
    expect(throughRuntime).toEqual([]);
  });
});
