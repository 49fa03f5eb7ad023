/**
 * Finds the error classes of the libraries by reading their sources with the TypeScript parser (no type-check, no
 * import of the code): every exported class whose `extends` chain reaches `JobsError`, with the code its constructor
 * passes to `super` and the first sentence of its TSDoc. What `error-codes.ts` renders into the README.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

/** One source file, as the collector reads it. */
export interface SourceText {
  /** Repository-relative path (`libs/jobs/src/errors/runtime-errors.ts`). */
  readonly path: string;
  readonly text: string;
}

/** One exported error class. */
export interface ErrorClassDoc {
  readonly className: string;
  /** The codes its instances carry: one, or each branch of a conditional code. */
  readonly codes: readonly string[];
  /** The first sentence of the class's TSDoc, on one line. */
  readonly summary: string;
  /** Where it is declared (repository-relative). */
  readonly path: string;
}

/** The root class every library error extends. */
export const BASE_ERROR_CLASS = 'JobsError';

interface FoundClass {
  readonly name: string;
  readonly parent: string;
  readonly exported: boolean;
  readonly node: ts.ClassDeclaration;
  readonly source: ts.SourceFile;
  readonly path: string;
}

/** Every non-test `.ts` file under `libs/<lib>/src` of the repository at `root`. */
export function librarySources(root: string): SourceText[] {
  const out: SourceText[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.ts$/.test(entry.name) && !/\.(spec|d)\.ts$/.test(entry.name)) {
        out.push({
          path: relative(root, full).split('\\').join('/'),
          text: readFileSync(full, 'utf8'),
        });
      }
    }
  };
  for (const lib of readdirSync(join(root, 'libs'), { withFileTypes: true })) {
    if (lib.isDirectory()) walk(join(root, 'libs', lib.name, 'src'));
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

function classesOf(file: SourceText): FoundClass[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const found: FoundClass[] = [];
  for (const node of source.statements) {
    if (!ts.isClassDeclaration(node) || node.name === undefined) continue;
    const extendsClause = node.heritageClauses?.find(
      (h) => h.token === ts.SyntaxKind.ExtendsKeyword,
    );
    const parent = extendsClause?.types[0]?.expression;
    if (parent === undefined || !ts.isIdentifier(parent)) continue;
    const exported = ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export ? true : false;
    found.push({
      name: node.name.text,
      parent: parent.text,
      exported,
      node,
      source,
      path: file.path,
    });
  }
  return found;
}

/** The first argument of the `super(…)` call in the class's constructor, if it has one. */
function superArgument(node: ts.ClassDeclaration): ts.Expression | undefined {
  const ctor = node.members.find(ts.isConstructorDeclaration);
  let first: ts.Expression | undefined;
  const visit = (n: ts.Node): void => {
    if (first !== undefined) return;
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.SuperKeyword) {
      first = n.arguments[0];
      return;
    }
    ts.forEachChild(n, visit);
  };
  if (ctor?.body) visit(ctor.body);
  return first;
}

/** The codes an expression can evaluate to, when it is made of string literals; undefined otherwise. */
function literalCodes(expr: ts.Expression): string[] | undefined {
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [expr.text];
  if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr)) {
    return literalCodes(expr.expression);
  }
  if (ts.isConditionalExpression(expr)) {
    const yes = literalCodes(expr.whenTrue);
    const no = literalCodes(expr.whenFalse);
    return yes && no ? [...new Set([...yes, ...no])] : undefined;
  }
  return undefined;
}

/** The first sentence of the class's TSDoc: up to the first `.`, `!` or `?` that ends a sentence outside backticks. */
function summaryOf(found: FoundClass): string {
  const docs = ts.getJSDocCommentsAndTags(found.node).filter(ts.isJSDoc);
  const comment = docs.at(-1)?.comment;
  const raw = typeof comment === 'string' ? comment : (ts.getTextOfJSDocComment(comment) ?? '');
  const text = raw
    .replace(/\{@link\s+([^}|\s]+)(?:\s*\|\s*([^}]+))?\}/g, (_, name: string, label?: string) =>
      label ? label.trim() : `\`${name}\``,
    )
    .replace(/\s+/g, ' ')
    .trim();
  let inCode = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '`') inCode = !inCode;
    else if (
      !inCode &&
      (c === '.' || c === '!' || c === '?') &&
      (i === text.length - 1 || text[i + 1] === ' ')
    ) {
      return text.slice(0, i + 1);
    }
  }
  return text;
}

function dynamicCodeError(found: FoundClass): Error {
  return new Error(
    `${found.path}: ${found.name} does not pass its code to super() as a string literal (or a conditional of ` +
      'literals), so the error code table cannot name it. Pass the code literally — one class per code — or ' +
      'choose between literals with a conditional.',
  );
}

/**
 * The exported error classes of `files`, sorted by code then class. A class that extends another error class carries
 * its parent's codes. Throws, naming the class, when a code is computed (a parameter, a variable): the table could not
 * list it, and the `JobsErrorCode` check could not hold it to the union.
 */
export function collectErrorClasses(files: readonly SourceText[]): ErrorClassDoc[] {
  const byName = new Map<string, FoundClass>();
  for (const found of files.flatMap(classesOf)) byName.set(found.name, found);
  const codes = new Map<string, readonly string[] | null>();
  const resolve = (found: FoundClass, seen: Set<string>): readonly string[] | null => {
    const known = codes.get(found.name);
    if (known !== undefined) return known;
    let result: readonly string[] | null = null;
    if (found.parent === BASE_ERROR_CLASS) {
      const arg = superArgument(found.node);
      result = (arg && literalCodes(arg)) ?? null;
      if (result === null) throw dynamicCodeError(found);
    } else {
      const parent = byName.get(found.parent);
      if (parent !== undefined && !seen.has(parent.name)) {
        result = resolve(parent, new Set([...seen, found.name]));
      }
    }
    codes.set(found.name, result);
    return result;
  };
  const docs: ErrorClassDoc[] = [];
  for (const found of byName.values()) {
    const classCodes = resolve(found, new Set());
    if (classCodes === null || !found.exported) continue;
    docs.push({
      className: found.name,
      codes: classCodes,
      summary: summaryOf(found),
      path: found.path,
    });
  }
  const first = (d: ErrorClassDoc): string => d.codes[0] ?? '';
  return docs.sort(
    (a, b) => first(a).localeCompare(first(b)) || a.className.localeCompare(b.className),
  );
}

/** The members of the `JobsErrorCode` union declared in `file` (`libs/jobs/src/errors/jobs-error.ts`). */
export function errorCodeUnion(file: SourceText): string[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const alias = source.statements.find(
    (s): s is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(s) && s.name.text === 'JobsErrorCode',
  );
  if (alias === undefined) throw new Error(`${file.path} declares no type JobsErrorCode`);
  const members = ts.isUnionTypeNode(alias.type) ? alias.type.types : [alias.type];
  return members.map((member) => {
    if (ts.isLiteralTypeNode(member) && ts.isStringLiteral(member.literal))
      return member.literal.text;
    throw new Error(`${file.path}: JobsErrorCode has a member that is not a string literal`);
  });
}
