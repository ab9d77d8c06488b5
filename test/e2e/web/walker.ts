/**
 * Walks the web administration in chromium: from a start page, every same-origin `/ui` link it
 * finds, breadth first, up to a bound. Links of one shape (the same path but for ids, the same
 * query names) are followed a few times, not once per id, so a page listing seventy reports does
 * not make seventy visits. Pages are found, never listed by hand: a new page is walked as soon as
 * a link leads to it.
 */
import type { Page } from 'playwright-core';

/** Path segments that name one thing of a collection, replaced by `*` in a link's shape. */
const COLLECTIONS = new Set(['webhooks', 'webhook-deliveries', 'members', 'keys', 'join']);

/** `/ui/apps/<pkg>/<tab>/<id>...`: what follows the tab names one thing; a package is kept. */
export function shapeOf(url: URL): string {
  const parts = url.pathname.split('/');
  const shape = parts.map((p, i) => {
    if (i >= 5 && parts[2] === 'apps') return '*';
    return i >= 3 && COLLECTIONS.has(parts[i - 1] ?? '') ? '*' : p;
  });
  const names = [...new Set(url.searchParams.keys())].sort().join('&');
  return `${shape.join('/')}?${names}`;
}

/** Links not to follow: leaving the session, and files that are not pages. */
const SKIPPED = [/^\/ui\/logout$/, /\/screenshot$/, /^\/ui\/(style\.css|app\.js)$/];

export interface WalkBounds {
  /** Pages visited at most. */
  readonly pages: number;
  /** Pages of one shape visited at most. */
  readonly perShape: number;
}

/** The `/ui` pages reachable from `start` (absolute URLs, in visiting order). */
export async function walk(page: Page, start: string, bounds: WalkBounds): Promise<string[]> {
  const origin = new URL(start).origin;
  const queue = [start];
  const seen = new Set<string>([start]);
  const perShape = new Map<string, number>();
  const visited: string[] = [];
  while (queue.length > 0 && visited.length < bounds.pages) {
    const url = queue.shift()!;
    const shape = shapeOf(new URL(url));
    if ((perShape.get(shape) ?? 0) >= bounds.perShape) continue;
    perShape.set(shape, (perShape.get(shape) ?? 0) + 1);
    const reply = await page.goto(url);
    if (!reply?.headers()['content-type']?.startsWith('text/html')) continue;
    visited.push(url);
    const hrefs = await page.$$eval('a[href]', (as) =>
      as.map((a) => (a as unknown as { href: string }).href),
    );
    for (const href of hrefs) {
      const next = new URL(href);
      next.hash = '';
      if (next.origin !== origin || !next.pathname.startsWith('/ui')) continue;
      if (SKIPPED.some((re) => re.test(next.pathname)) || seen.has(next.href)) continue;
      seen.add(next.href);
      queue.push(next.href);
    }
  }
  return visited;
}

export interface PageProblems {
  /** `scrollWidth > innerWidth`: the widest element past the window's right edge. */
  readonly overflow: string | null;
  readonly charts: string[];
  readonly skipLink: string | null;
}

/**
 * Measured in the page (plain JavaScript: the test's TypeScript has no DOM types): the widest
 * element past the window's right edge when the page is wider than the window, the charts
 * without a text summary, and whether the first focusable element is the skip link to
 * `<main id="content">`.
 */
const MEASURE = `(() => {
  const root = document.documentElement;
  let overflow = null;
  // The widest element past the right edge that no scrolling or clipping box holds.
  const free = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return false;
    }
    return true;
  };
  if (root.scrollWidth > window.innerWidth) {
    let widest = null;
    let right = 0;
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect().right;
      if (r > right && r > window.innerWidth && free(el)) { widest = el; right = r; }
    }
    const cls = widest && typeof widest.className === 'string' && widest.className
      ? '.' + widest.className.trim().split(' ').join('.') : '';
    const name = widest ? widest.tagName.toLowerCase() + cls : '?';
    const text = widest ? widest.textContent.trim().slice(0, 40) : '';
    overflow = 'scrollWidth ' + root.scrollWidth + ' > ' + window.innerWidth +
      '; widest: ' + name + ' to ' + Math.round(right) + ' px (' + JSON.stringify(text) + ')';
  }
  const charts = [...document.querySelectorAll('figure.chart')]
    .filter((f) => !(f.querySelector('.chart-summary')?.textContent ?? '').trim())
    .map((f) => 'figure.chart without a summary: ' + (f.getAttribute('data-chart') ?? '?'));
  const first = document.querySelector('a[href], button, input:not([type="hidden"]), select, ' +
    'textarea, summary, [tabindex]:not([tabindex="-1"])');
  const skip = !!first && first.tagName === 'A' && first.getAttribute('href') === '#content' &&
    first.textContent.trim() === 'Skip to content';
  const main = !!document.querySelector('main#content');
  const skipLink = skip && main ? null : 'skip link first: ' + skip + '; main#content: ' + main;
  return { overflow, charts, skipLink };
})()`;

/** What the current page breaks of issue 35's rules. */
export function problemsOf(page: Page): Promise<PageProblems> {
  return page.evaluate<PageProblems>(MEASURE);
}
