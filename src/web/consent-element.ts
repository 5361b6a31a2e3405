/**
 * `<elicit-url-consent>`: who asks and why, the full canonical URL with the site highlighted,
 * and the URL analysis warnings on top. The page opens only on an explicit click, in a new
 * browsing context with `noopener,noreferrer`; nothing is fetched or preloaded before (the URL
 * is text, never a link); refused URLs show no open button.
 */
import { inert } from '../client/inert.ts';
import type { UrlAnalysis } from '../url/analyze.ts';
import { ElicitElement } from './base.ts';
import { BASE_CSS, el } from './styles.ts';

export interface ConsentRequest {
  readonly server: string;
  readonly message: string;
  /** The analysis from elicit/url (the client pipeline computes it). */
  readonly analysis: UrlAnalysis;
  /** Call after opening; elicit/client passes its opener. Default: window.open. */
  readonly open?: (href: string) => void | Promise<void>;
}

export type ConsentDetail = { action: 'opened' } | { action: 'decline' } | { action: 'cancel' };

export class ElicitUrlConsentElement extends ElicitElement<ConsentDetail> {
  #request: ConsentRequest | undefined;

  get request(): ConsentRequest | undefined {
    return this.#request;
  }

  set request(request: ConsentRequest | undefined) {
    this.#request = request;
    this.reset();
    this.#render();
  }

  #render(): void {
    const r = this.#request;
    if (r === undefined) {
      this.root.replaceChildren();
      return;
    }
    const a = r.analysis;
    const warnings = el('div', {
      part: 'warnings',
      attrs: { role: a.verdict === 'danger' ? 'alert' : 'status' },
    });
    for (const w of a.warnings) {
      warnings.append(
        el('p', {
          class: `warn ${w.severity}`,
          part: `warning warning-${w.severity}`,
          text: inert(w.message, 500),
        }),
      );
    }
    const box = el('div', { class: 'box', part: 'container' }, warnings);
    box.append(
      el('div', {
        class: 'who',
        part: 'server',
        text: `${inert(r.server, 80, false)} wants you to open a page`,
      }),
      el('p', { class: 'message', part: 'message', text: inert(r.message, 2000) }),
    );
    if (a.verdict === 'refused') {
      box.append(
        el('p', {
          class: 'error',
          part: 'refusal',
          text: `This page cannot be opened: ${inert(a.refusal?.message ?? '', 500)}`,
          attrs: { role: 'alert' },
        }),
      );
    } else {
      const url = el('p', {
        class: 'url',
        part: 'url',
        attrs: { 'aria-label': `Address: ${inert(a.display, 2000, false)}` },
      });
      for (const s of a.segments) {
        const text = inert(s.text, 500, false);
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
        url,
        el('p', { class: 'muted', text: `Site: ${inert(a.site ?? '', 300, false)}` }),
      );
    }
    const actions = el('div', { class: 'actions', part: 'actions' });
    let open: HTMLButtonElement | undefined;
    if (a.verdict !== 'refused' && a.href !== undefined) {
      const href = a.href;
      open = el('button', {
        class: a.verdict === 'danger' ? '' : 'primary',
        part: 'open',
        text: a.verdict === 'danger' ? 'Open anyway' : 'Open in a new tab',
        attrs: { type: 'button' },
      });
      open.addEventListener('click', async () => {
        if (r.open !== undefined) await r.open(href);
        else window.open(href, '_blank', 'noopener,noreferrer');
        this.finish({ action: 'opened' });
      });
    }
    const rest = (['decline', 'cancel'] as const).map((action) => {
      const b = el('button', {
        part: action,
        text: action === 'decline' ? 'Decline' : 'Cancel',
        attrs: { type: 'button' },
      });
      b.addEventListener('click', () => this.finish({ action }));
      return b;
    });
    // A dangerous page never gets the first focus: Enter must not open it by accident.
    if (open !== undefined && a.verdict !== 'danger') actions.append(open, ...rest);
    else actions.append(...rest, ...(open === undefined ? [] : [open]));
    box.append(actions);
    this.root.replaceChildren(el('style', { text: BASE_CSS }), box);
  }
}
