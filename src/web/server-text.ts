/**
 * How the elements show what a server wrote: inert, in a quoted frame that says whose words they
 * are, bounded in characters, lines and height, so the element's own parts (address, site,
 * warnings, buttons) stay where the person expects them.
 */
import { inert } from '../client/inert.ts';
import { MESSAGE_LIMITS } from './limits.ts';
import { el } from './styles.ts';

/** Inert text, runs of blank lines collapsed to one, at most `lines` lines. */
export function boundedText(text: string, lines: number = MESSAGE_LIMITS.lines): string {
  // Blank-line runs collapse before the character cap, so newlines cannot spend it.
  const collapsed = text
    .slice(0, MESSAGE_LIMITS.characters * 8)
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
  const all = inert(collapsed, MESSAGE_LIMITS.characters).split('\n');
  if (all.length <= lines) return all.join('\n');
  return `${all.slice(0, lines).join('\n')}\n… (${all.length - lines} more lines hidden)`;
}

/**
 * The server's message in its frame: a caption naming it as the server's words, then the text
 * (`dir="auto"`, wrapping, scrollable past its height cap and then reachable by keyboard).
 */
export function saidBlock(server: string, message: string, id: string): HTMLElement {
  const text = el('p', {
    class: 'message',
    part: 'message',
    text: boundedText(message),
    attrs: { id, dir: 'auto' },
  });
  // A message taller than its frame scrolls; only then is it a stop for the keyboard.
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => {
      if (text.scrollHeight > text.clientHeight + 1) {
        text.tabIndex = 0;
        text.setAttribute('role', 'region');
        text.setAttribute('aria-label', 'Message (scrolls)');
      } else {
        text.removeAttribute('tabindex');
        text.removeAttribute('role');
        text.removeAttribute('aria-label');
      }
    }).observe(text);
  }
  return el(
    'div',
    { class: 'said', part: 'said' },
    el('p', { class: 'said-by', text: `In ${server}'s words:` }),
    text,
  );
}

/** One line of server text (names, titles, labels): inert, newlines folded, bounded. */
export const line = (text: string, max: number): string => inert(text, max, false);

const hex = (c: string) =>
  `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * A look-alike name beside the name it imitates, the characters that differ marked and spelled
 * out by code point ("а U+0430 where apple.com has a U+0061").
 */
export function lookalikeBlock(name: string, imitates: string): HTMLElement {
  const a = [...name];
  const b = [...imitates];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (
    end < a.length - start &&
    end < b.length - start &&
    a[a.length - 1 - end] === b[b.length - 1 - end]
  )
    end++;
  const shown = el('dd', { attrs: { dir: 'ltr' } });
  const pairs: string[] = [];
  a.forEach((c, i) => {
    const differs = i >= start && i < a.length - end && (a.length !== b.length || c !== b[i]);
    const text = line(c, 4);
    shown.append(differs ? el('mark', { text }) : text);
  });
  if (a.length === b.length) {
    for (let i = start; i < a.length - end; i++)
      if (a[i] !== b[i])
        pairs.push(
          `${line(a[i] as string, 4)} ${hex(a[i] as string)} where ${imitates} has ${b[i]} ${hex(b[i] as string)}`,
        );
  } else {
    const mine = a.slice(start, a.length - end);
    const theirs = b.slice(start, b.length - end);
    pairs.push(
      `${line(mine.join(''), 40) || '(nothing)'} ${mine.map(hex).join(' ')} where ${imitates} has ${theirs.join('') || 'nothing'}${theirs.length === 0 ? '' : ` ${theirs.map(hex).join(' ')}`}`,
    );
  }
  return el(
    'dl',
    { class: 'compare', part: 'lookalike' },
    el('dt', { text: 'This site' }),
    shown,
    el('dt', { text: 'Looks like' }),
    el('dd', { text: imitates, attrs: { dir: 'ltr' } }),
    el('dt', { text: 'Differs' }),
    el('dd', { text: pairs.join('; '), attrs: { dir: 'ltr' } }),
  );
}
