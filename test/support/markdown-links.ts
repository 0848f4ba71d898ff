import path from 'node:path';

/** A link of a Markdown page: where it is and where it points, as written. */
export interface MarkdownLink {
  /** The line the link starts on, counted from 1. */
  readonly line: number;
  readonly target: string;
}

const FENCE = /^\s*(```|~~~)/;
const CODE_SPAN = /(`+)[\s\S]*?[^`]\1(?!`)/g;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;
const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const EXTERNAL = /^[a-z][a-z\d+.-]*:/i;

/** The page with its code (fenced blocks, code spans) and HTML comments blanked, every character's place kept. */
function prose(markdown: string): string {
  let inFence = false;
  const lines = markdown.split('\n').map((line) => {
    const fence = FENCE.test(line);
    const blank = inFence || fence;
    if (fence) inFence = !inFence;
    return blank ? ' '.repeat(line.length) : line;
  });
  const spaces = (text: string) => text.replace(/[^\n]/g, ' ');
  return lines.join('\n').replace(HTML_COMMENT, spaces).replace(CODE_SPAN, spaces);
}

/**
 * The anchor GitHub gives a heading: its text as rendered (a link's text, not its address), lower
 * case, every character but letters, marks, digits, `_`, `-` and spaces dropped, each space a `-`.
 *
 * @example
 * ```ts
 * githubSlug('A redrive at the end: `npm start -- --redrive`') // 'a-redrive-at-the-end-npm-start------redrive'
 * ```
 */
export function githubSlug(heading: string): string {
  const rendered = heading.replace(/!?\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, '$1');
  return rendered.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor of a page's headings, a repeated one numbered as GitHub numbers it (`x`, `x-1`, `x-2`). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : HEADING.exec(line);
    if (!heading) continue;
    const slug = githubSlug(heading[2]!);
    let anchor = slug;
    for (let count = 1; anchors.has(anchor); count += 1) anchor = `${slug}-${count}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The links of a page (inline, images, reference definitions), those inside code and HTML comments aside. */
export function linksOf(markdown: string): MarkdownLink[] {
  const text = prose(markdown);
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  return [...text.matchAll(INLINE_LINK), ...text.matchAll(DEFINITION)]
    .map((match) => ({ line: lineAt(match.index), target: match[1]! }))
    .sort((a, b) => a.line - b.line);
}

/**
 * The links of the given pages that lead nowhere: a relative file that does not exist (or lies
 * outside the repository), an `#anchor` no heading of its Markdown page has. Addresses with a
 * scheme (https:, mailto:) are left alone. `read` answers a repository file's text, `''` for a
 * folder, undefined when there is none. One line per broken link: `<page>:<line>: <target>: <why>`.
 *
 * @example
 * ```ts
 * brokenLinks(['README.md'], readRepositoryFile) // [] when every link and anchor resolves
 * ```
 */
export function brokenLinks(pages: readonly string[], read: (file: string) => string | undefined): string[] {
  return pages.flatMap((page) => linksOf(read(page) ?? '').flatMap(({ line, target }) => {
    if (EXTERNAL.test(target)) return [];
    const [address = '', anchor] = target.split('#', 2);
    const file = address === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(address)));
    const where = `${page}:${line}: ${target}`;
    if (file.startsWith('../') || path.posix.isAbsolute(file)) return [`${where}: leaves the repository`];
    const text = read(file.replace(/\/$/, ''));
    if (text === undefined) return [`${where}: no such file`];
    if (anchor === undefined) return [];
    if (!file.endsWith('.md')) return [`${where}: an anchor on a file that is not Markdown`];
    return anchorsOf(text).has(anchor) ? [] : [`${where}: ${file} has no heading with the anchor #${anchor}`];
  }));
}
