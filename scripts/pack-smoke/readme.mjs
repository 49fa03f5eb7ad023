/**
 * Reads the README's "## Install" section: the scratch app is built from exactly what it tells a user to write.
 *
 * - `npm install …` lines in a `sh` block: the packages (the first line) and the dev packages (`--save-dev`);
 * - `ts` blocks whose first line is `// src/<file>.ts`: the app's files, verbatim;
 * - the `json` block holding `compilerOptions`: the app's `tsconfig.json`;
 * - a `ts` block calling `<handle>.enqueue({ … })`: what the smoke enqueues, and the job's export name.
 */
import { readFileSync } from 'node:fs';

function section(markdown, title) {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

function codeBlocks(text) {
  const blocks = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    blocks.push({ lang: match[1], body: match[2] });
  }
  return blocks;
}

function installLines(blocks) {
  const lines = blocks
    .filter((block) => block.lang === 'sh')
    .flatMap((block) => block.body.split('\n'))
    .filter((line) => line.startsWith('npm install '));
  const words = (line) =>
    line
      .replace(/#.*$/, '')
      .trim()
      .split(/\s+/)
      .slice(2)
      .filter((word) => !word.startsWith('-'));
  const dev = lines.filter((line) => / --save-dev\b| -D\b/.test(line)).flatMap(words);
  const deps = lines.filter((line) => !/ --save-dev\b| -D\b/.test(line)).flatMap(words);
  if (deps.length === 0)
    throw new Error('README Install: no `npm install <packages>` line in a sh block');
  return { deps, dev };
}

function appFiles(blocks) {
  const files = {};
  for (const block of blocks.filter((b) => b.lang === 'ts')) {
    const marker = /^\/\/ (src\/[\w./-]+\.ts)\b/.exec(block.body);
    if (marker) files[marker[1]] = block.body;
  }
  if (Object.keys(files).length === 0)
    throw new Error('README Install: no `// src/….ts` code block');
  return files;
}

function tsconfig(blocks) {
  const block = blocks.find((b) => b.lang === 'json' && b.body.includes('"compilerOptions"'));
  if (!block)
    throw new Error('README Install: no ```json block with the tsconfig.json compilerOptions');
  return JSON.parse(block.body);
}

function enqueueCall(blocks, files) {
  for (const block of blocks.filter((b) => b.lang === 'ts')) {
    const call = /\b([A-Za-z_$][\w$]*)\.enqueue\((\{[^\n]*?\})\)/.exec(block.body);
    if (!call) continue;
    const [, handle, literal] = call;
    const file = Object.keys(files).find((f) =>
      new RegExp(`export const ${handle}\\b`).test(files[f]),
    );
    if (!file) throw new Error(`README Install: no file exports the job handle ${handle}`);
    // the README's own object literal, evaluated as the user's code would
    const input = new Function(`return (${literal});`)();
    return { handle, file, input };
  }
  throw new Error('README Install: no `<job>.enqueue({ … })` example');
}

/** The Install section, parsed; throws naming what is missing. */
export function readInstallSection(readmePath) {
  const blocks = codeBlocks(section(readFileSync(readmePath, 'utf8'), 'Install'));
  const files = appFiles(blocks);
  const main = Object.keys(files).find((f) => files[f].includes('createApplicationContext'));
  if (!main) throw new Error('README Install: no file calls NestFactory.createApplicationContext');
  return {
    ...installLines(blocks),
    files,
    main,
    tsconfig: tsconfig(blocks),
    enqueue: enqueueCall(blocks, files),
  };
}
