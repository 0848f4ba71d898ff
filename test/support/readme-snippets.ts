import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
// `<!-- snippet: path/in/the/project -->` on its own line, then a fenced block.
const SNIPPET = /^<!-- snippet: (\S+) -->\n```[a-z]*\n([\s\S]*?)\n```$/gm;

/**
 * The code blocks of README.md marked `<!-- snippet: <path> -->`, by the path of the file each one
 * is in a project of the reader's, so a test can build that project from the README itself.
 *
 * @example
 * ```ts
 * for (const [file, text] of readmeSnippets()) await writeFile(path.join(project, file), text);
 * ```
 */
export function readmeSnippets(text: string = readFileSync(README, 'utf8')): Map<string, string> {
  const snippets = new Map<string, string>();
  for (const [, file, code] of text.matchAll(SNIPPET)) {
    if (snippets.has(file!)) throw new Error(`README.md marks two snippets as ${file}: give each file one.`);
    snippets.set(file!, `${code}\n`);
  }
  return snippets;
}
