/**
 * `<elicit-url-consent>`: who asks, the server's message in a frame marked as its words, then the
 * full canonical URL with the site highlighted and the URL analysis warnings, right above the
 * choice (so no server text can sit between the warnings and the buttons). The page opens only on
 * an explicit click, in a new browsing context with `noopener,noreferrer`; nothing is fetched or
 * preloaded before (the URL is text, never a link); refused URLs show no open button. Focus
 * starts on Decline, and for a moment after the consent appears its buttons ignore input, so a
 * key or click meant for what was there before cannot open the page.
 */
import type { UrlAnalysis } from '../url/index.ts';
import { ElicitElement } from './base.ts';
import { CONSENT_ARM_MS } from './limits.ts';
import { line, lookalikeBlock, saidBlock } from './server-text.ts';
import { el } from './styles.ts';

export interface ConsentRequest {
  readonly server: string;
  readonly message: string;
  /** The analysis from elicit/url (the client pipeline computes it). */
  readonly analysis: UrlAnalysis;
  /** Call after opening; elicit/client passes its opener. Default: window.open. */
  readonly open?: (href: string) => void | Promise<void>;
}

export type ConsentDetail = { action: 'opened' } | { action: 'decline' } | { action: 'cancel' };

let uid = 0;

export class ElicitUrlConsentElement extends ElicitElement<ConsentDetail> {
  #request: ConsentRequest | undefined;
  #shownAt = 0;
  #first: HTMLButtonElement | undefined;
  #open: HTMLButtonElement | undefined;

  get request(): ConsentRequest | undefined {
    return this.#request;
  }

  set request(request: ConsentRequest | undefined) {
    if (request !== undefined && same(request, this.#request)) {
      this.#request = request;
      return;
    }
    this.#request = request;
    this.reset();
    this.#render();
  }

  connectedCallback(): void {
    this.#arm();
  }

  /**
   * From now, for CONSENT_ARM_MS, every button ignores clicks and keys, and the open button is
   * disabled (so it also looks inactive).
   */
  #arm(): void {
    this.#shownAt = performance.now();
    const open = this.#open;
    if (open === undefined) return;
    open.disabled = true;
    setTimeout(() => {
      if (!this.answered) open.disabled = false;
    }, CONSENT_ARM_MS);
  }

  /** Focus goes to Decline, never to the button that opens the page. */
  override focus(options?: FocusOptions): void {
    if (this.#first !== undefined && !this.answered) this.#first.focus(options);
    else super.focus(options);
  }

  protected outcome(detail: ConsentDetail): string {
    return detail.action === 'opened'
      ? 'Opened in a new tab.'
      : detail.action === 'decline'
        ? 'Declined.'
        : 'Cancelled.';
  }

  #render(): void {
    const r = this.#request;
    this.#first = undefined;
    this.#open = undefined;
    if (r === undefined) {
      this.view.replaceChildren();
      return;
    }
    const a = r.analysis;
    const id = `c${++uid}`;
    const server = line(r.server, 80);
    const box = el(
      'div',
      {
        class: 'box',
        part: 'container',
        attrs: {
          role: 'dialog',
          'aria-labelledby': `${id}-who`,
          'aria-describedby': `${id}-warnings ${id}-message`,
        },
      },
      el('p', {
        class: 'who',
        part: 'server',
        text: `${server} wants you to open a page`,
        attrs: { id: `${id}-who`, dir: 'auto' },
      }),
      saidBlock(server, r.message, `${id}-message`),
    );
    if (a.verdict !== 'refused') {
      const url = el('p', { class: 'url', part: 'url', attrs: { dir: 'ltr' } });
      for (const s of a.segments) {
        const text = line(s.text, 500);
        if (s.part === 'domain') url.append(el('mark', { part: 'site', text }));
        else
          url.append(
            el('span', {
              class: s.part === 'scheme' || s.part === 'subdomain' ? 'dim' : '',
              text,
            }),
          );
      }
      box.append(
        el(
          'div',
          { class: 'where', part: 'address' },
          el('p', { class: 'label', text: 'Address' }),
          url,
          el('p', { text: `Site: ${line(a.site ?? '', 300)}`, attrs: { dir: 'ltr' } }),
        ),
      );
    }
    const warnings = el('div', { part: 'warnings', attrs: { id: `${id}-warnings` } });
    for (const w of a.warnings) {
      const item = el(
        'div',
        { class: `warn ${w.severity}`, part: `warning warning-${w.severity}` },
        el('p', { text: line(w.message, 500) }),
      );
      if (w.lookalike !== undefined)
        item.append(lookalikeBlock(w.lookalike.name, w.lookalike.imitates));
      warnings.append(item);
    }
    if (a.verdict === 'refused')
      warnings.append(
        el('p', {
          class: 'error',
          part: 'refusal',
          text: `This page cannot be opened: ${line(a.refusal?.message ?? '', 500)}`,
        }),
      );
    box.append(warnings);
    const actions = el('div', { class: 'actions', part: 'actions' });
    const button = (text: string, part: string, action: () => void, cls = '') => {
      const b = el('button', { class: cls, part, text, attrs: { type: 'button' } });
      b.addEventListener('click', () => {
        // A click or key within the first moment was meant for what was there before (a refused
        // page has nothing to accept, so there is nothing to guard).
        if (a.verdict !== 'refused' && performance.now() - this.#shownAt < CONSENT_ARM_MS) return;
        action();
      });
      return b;
    };
    const decline = button('Decline', 'decline', () => this.finish({ action: 'decline' }));
    const cancel = button('Cancel', 'cancel', () => this.finish({ action: 'cancel' }));
    let open: HTMLButtonElement | undefined;
    if (a.verdict !== 'refused' && a.href !== undefined) {
      const href = a.href;
      // Only a page with nothing to warn about gets the primary look; a dangerous one is red.
      open = button(
        a.verdict === 'danger' ? 'Open anyway' : 'Open in a new tab',
        'open',
        async () => {
          if (r.open !== undefined) await r.open(href);
          else window.open(href, '_blank', 'noopener,noreferrer');
          this.finish({ action: 'opened' });
        },
        a.verdict === 'ok' ? 'primary' : a.verdict === 'danger' ? 'risky' : '',
      );
    }
    if (open !== undefined && a.verdict === 'ok') actions.append(open, decline, cancel);
    else actions.append(decline, cancel, ...(open === undefined ? [] : [open]));
    box.append(actions);
    this.#first = decline;
    this.#open = open;
    this.view.replaceChildren(box);
    if (this.isConnected) this.#arm();
  }
}

function same(a: ConsentRequest, b: ConsentRequest | undefined): boolean {
  return (
    b !== undefined &&
    a.server === b.server &&
    a.message === b.message &&
    a.open === b.open &&
    JSON.stringify(a.analysis) === JSON.stringify(b.analysis)
  );
}
