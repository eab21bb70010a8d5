// Issue 23, item 11: the README is a front page linking the reference pages in docs/. Every relative link of
// README.md and docs/*.md must open something: a file that exists and, when it names an anchor in a markdown page,
// a heading of that page (GitHub's anchors).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/keeper.js';

/** The pages whose links are held: README.md and every markdown file of docs/. */
const PAGES = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))];

/** The text of a page without its fenced code blocks (a `#` there is no heading). */
function unfenced(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The text of a page without code, fenced or inline, where brackets are not links. */
function prose(text: string): string {
  return unfenced(text).replace(/`[^`\n]*`/g, '');
}

/** Every inline link or image target of a page, `[text](target)` or `![alt](target "title")`; the text may wrap. */
function targets(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

/** The anchors GitHub gives a page's headings: lowercase, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of unfenced(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = m[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Why a relative link of `page` is broken, or undefined when it opens what it names. */
function brokenBecause(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? page : resolve(dirname(page), decodeURI(path));
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`;
  if (anchor === undefined || anchor === '' || !file.endsWith('.md')) return undefined;
  return anchors(readFileSync(file, 'utf8')).has(anchor) ? undefined : `${relative(ROOT, file)} has no heading #${anchor}`;
}

describe('the links of README.md and docs/', () => {
  it('finds the pages and their links (the reference pages hang off the README)', () => {
    const readme = targets(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    for (const page of ['architecture', 'configuration', 'strategies', 'simulator', 'going-live', 'docker', 'development']) {
      expect(readme, page).toContain(`docs/${page}.md`);
    }
  });

  it('every relative link names a file that exists, and an anchor a heading of its page', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(page, 'utf8');
      for (const target of targets(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: are not the repository's
        const why = brokenBecause(page, target);
        if (why) broken.push(`${relative(ROOT, page)}: (${target}) ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every page of docs/ links back to the README', () => {
    for (const page of PAGES.slice(1)) {
      if (page.endsWith('architecture.md')) continue; // the map of the code, linked from the README and the pages
      expect(targets(readFileSync(page, 'utf8')), relative(ROOT, page)).toContain('../README.md');
    }
  });
});

describe('the link checker itself', () => {
  it('reads a broken file and a broken anchor as broken, and code as no link', () => {
    const page = join(ROOT, 'README.md');
    expect(brokenBecause(page, 'docs/nope.md')).toBe('docs/nope.md does not exist');
    expect(brokenBecause(page, 'docs/architecture.md#no-such-heading')).toBe('docs/architecture.md has no heading #no-such-heading');
    expect(brokenBecause(page, 'docs/architecture.md#the-guards-rules')).toBeUndefined();
    expect(targets('see [a](b.md) and `[c](d.md)`\n```\n[e](f.md)\n```\n![g](h.png "t") [wrapped\ntext](i.md#j)')).toEqual(['b.md', 'h.png', 'i.md#j']);
    expect([...anchors('# Going live\n## What is proven on the live service\n## Going live\n```\n# not a heading\n```\n## The `trades` command')]).toEqual(['going-live', 'what-is-proven-on-the-live-service', 'going-live-1', 'the-trades-command']);
  });
});
