/**
 * What the browser suite checks on a screen, as a person and an auditor meet it: axe-core
 * (WCAG 2.2 AA tags), no sideways scrolling, and a visible focus indicator at every Tab stop.
 */
import type { Page } from 'playwright-core';
import { AXE_SOURCE } from './screens.ts';

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  /** Where, as axe's selectors (shadow DOM paths joined with " >> "). */
  readonly targets: readonly string[];
}

/** axe-core on the whole page (shadow roots included), WCAG 2.2 AA rules only. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  // Through the debugger, not a <script>: the page's CSP stays as strict as it is.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: AxeLike }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) =>
        n.target.map((t) => (Array.isArray(t) ? t.join(' >> ') : t)).join(' >> '),
      ),
    }));
  }, WCAG_TAGS);
}

interface AxeLike {
  run(
    context: unknown,
    options: unknown,
  ): Promise<{
    violations: {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: (string | string[])[] }[];
    }[];
  }>;
}

/** The page's width beyond the viewport, with the widest element when there is any. */
export function overflow(page: Page): Promise<{ excess: number; widest: string }> {
  return page.evaluate(() => {
    const doc = document.documentElement;
    const excess = doc.scrollWidth - doc.clientWidth;
    let widest = '';
    if (excess > 0) {
      let max = 0;
      for (const e of document.querySelectorAll('body *')) {
        const r = e.getBoundingClientRect();
        if (r.right > max) {
          max = r.right;
          widest = `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className}`;
        }
      }
    }
    return { excess, widest };
  });
}

/** One Tab stop: what has focus and how well its indicator stands out. */
export interface FocusStop {
  readonly element: string;
  /** Best contrast of the indicator (outline or box-shadow ring) against what is behind it. */
  readonly contrast: number;
  readonly how: string;
  /** True when this element had focus before in this walk. */
  readonly again: boolean;
}

/**
 * The focused element (through shadow roots) and its indicator's contrast, from computed
 * styles. Chromium's own `auto` ring is two-tone (dark and light), so it counts as 3:1.
 */
export function focusStop(page: Page): Promise<FocusStop | undefined> {
  return page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (active === null || active === document.body || active === document.documentElement)
      return undefined;
    const rgba = (c: string): [number, number, number, number] | undefined => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return undefined;
      const p = (m[1] as string)
        .split(/[ ,/]+/)
        .filter(Boolean)
        .map(Number);
      return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0, p[3] ?? 1];
    };
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r ?? 0) + 0.7152 * f(g ?? 0) + 0.0722 * f(b ?? 0);
    };
    /** Contrast of a (possibly translucent) colour drawn over an opaque one. */
    const ratio = (c: number[], b: number[]) => {
      const a = c[3] ?? 1;
      const over = [0, 1, 2].map((i) => (c[i] ?? 0) * a + (b[i] ?? 0) * (1 - a));
      const [x, y] = [lum(over), lum(b)].sort((p, q) => q - p) as [number, number];
      return (x + 0.05) / (y + 0.05);
    };
    const parentOf = (e: Element): Element | null =>
      e.parentElement ?? ((e.getRootNode() as ShadowRoot).host as Element | undefined) ?? null;
    /** The opaque colour behind an element (blending translucent layers over the page). */
    const behind = (start: Element | null): number[] => {
      const layers: [number, number, number, number][] = [];
      for (let e = start; e !== null; e = parentOf(e)) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c !== undefined && c[3] > 0) {
          layers.push(c);
          if (c[3] >= 1) break;
        }
      }
      const dark = matchMedia('(prefers-color-scheme: dark)').matches;
      let out: number[] = dark ? [0, 0, 0] : [255, 255, 255];
      for (const [r, g, b, a] of layers.reverse())
        out = [
          r * a + (out[0] ?? 0) * (1 - a),
          g * a + (out[1] ?? 0) * (1 - a),
          b * a + (out[2] ?? 0) * (1 - a),
        ];
      return out;
    };
    const w = window as unknown as { elicitSeen?: WeakSet<Element>; elicitLast?: Element };
    w.elicitSeen ??= new WeakSet();
    // Tab inside one control (a date input's day, month and year) is not coming back round.
    const again = w.elicitSeen.has(active) && w.elicitLast !== active;
    w.elicitSeen.add(active);
    w.elicitLast = active;
    const style = getComputedStyle(active);
    const name =
      `${active.tagName.toLowerCase()}${active.id ? `#${active.id}` : ''}` +
      `${active.getAttribute('part') ? `[part=${active.getAttribute('part')}]` : ''}` +
      `${active.getAttribute('name') ? `[name=${active.getAttribute('name')}]` : ''}` +
      `${active.getAttribute('data-tool') ? `[data-tool=${active.getAttribute('data-tool')}]` : ''}` +
      ` "${(active.textContent ?? '').trim().slice(0, 30)}"`;
    const candidates: { contrast: number; how: string }[] = [];
    const width = Number.parseFloat(style.outlineWidth);
    if (style.outlineStyle === 'auto') candidates.push({ contrast: 3, how: 'auto ring' });
    else if (style.outlineStyle !== 'none' && width >= 2) {
      const color = rgba(style.outlineColor);
      const offset = Number.parseFloat(style.outlineOffset);
      const bg = behind(offset + width > 0 ? parentOf(active) : active);
      if (color !== undefined && color[3] > 0)
        candidates.push({
          contrast: Math.max(
            ratio(color, bg),
            // An inset ring is judged against the element's own background as well.
            offset < 0 ? ratio(color, behind(active)) : 0,
          ),
          how: `outline ${style.outlineWidth} ${style.outlineColor}`,
        });
    }
    for (const shadow of style.boxShadow === 'none' ? [] : style.boxShadow.split(/,(?![^(]*\))/)) {
      const color = rgba(shadow);
      const spread = shadow
        .replace(/rgba?\([^)]*\)/, '')
        .trim()
        .split(/\s+/)
        .map(Number.parseFloat);
      if (color === undefined || color[3] === 0 || (spread[3] ?? 0) < 2) continue;
      candidates.push({
        contrast: ratio(color, behind(shadow.includes('inset') ? active : parentOf(active))),
        how: `box-shadow ${shadow}`,
      });
    }
    const best = candidates.sort((a, b) => b.contrast - a.contrast)[0];
    return {
      again,
      element: name,
      contrast: Math.round((best?.contrast ?? 0) * 100) / 100,
      how: best?.how ?? `none (outline ${style.outlineStyle} ${style.outlineWidth})`,
    };
  });
}

/**
 * Tabs through the page from the top and returns every stop, until focus comes back round
 * (or after `max` stops).
 */
export async function tabStops(page: Page, max = 60): Promise<FocusStop[]> {
  await page.evaluate(() => {
    Object.assign(window, { elicitSeen: new WeakSet(), elicitLast: undefined });
    // Focus the body itself: the next Tab starts from the top of the page.
    document.body.tabIndex = -1;
    document.body.focus();
    document.body.removeAttribute('tabindex');
    window.getSelection()?.removeAllRanges();
  });
  const stops: FocusStop[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const stop = await focusStop(page);
    if (stop === undefined || stop.again) break;
    if (stops.at(-1)?.element !== stop.element) stops.push(stop);
  }
  return stops;
}

/** The focused element's description (through shadow roots), or "body". */
export function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (active === null || active === document.body) return 'body';
    const attrs = ['id', 'part', 'name', 'data-tool', 'class']
      .map((a) => (active?.getAttribute(a) ? `[${a}=${active.getAttribute(a)}]` : ''))
      .join('');
    return `${active.tagName.toLowerCase()}${attrs}`;
  });
}
