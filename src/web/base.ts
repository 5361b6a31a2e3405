/**
 * What both elements share: an open shadow root that delegates focus, styles adopted without
 * inline CSS, one polite live region for everything announced, Escape = cancel, and exactly one
 * `elicit-response` event per request, after which the element shows the outcome and disables
 * its controls.
 */
import { adoptStyles, el } from './styles.ts';

export abstract class ElicitElement<Detail extends { action: string }> extends HTMLElement {
  protected readonly root: ShadowRoot;
  /** What the element shows; re-rendered as a whole. */
  protected readonly view: HTMLDivElement;
  // The one live region: it stays in place across renders, so each message is read once.
  readonly #live: HTMLDivElement;
  #answered = false;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open', delegatesFocus: true });
    adoptStyles(this.root);
    this.view = el('div', { part: 'view' });
    this.#live = el('div', { class: 'sr', attrs: { role: 'status' } });
    this.root.append(this.view, this.#live);
    this.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.#answered) {
        e.preventDefault();
        this.escape();
      }
    });
  }

  /** Whether this request has been answered (the element then only shows the outcome). */
  get answered(): boolean {
    return this.#answered;
  }

  /** Escape: cancel, unless an element asks first. */
  protected escape(): void {
    this.finish({ action: 'cancel' } as Detail);
  }

  /** Says `text` through the live region (once; the same text again is said again). */
  protected announce(text: string): void {
    this.#live.textContent = '';
    setTimeout(() => {
      this.#live.textContent = text;
    }, 50);
  }

  /** A new request may be answered again. */
  protected reset(): void {
    this.#answered = false;
  }

  /** What the person sees after answering with `detail`. */
  protected abstract outcome(detail: Detail): string;

  protected finish(detail: Detail): void {
    if (this.#answered) return;
    this.#answered = true;
    const said = this.outcome(detail);
    for (const control of this.view.querySelectorAll<
      HTMLButtonElement | HTMLInputElement | HTMLSelectElement
    >('button,input,select'))
      control.disabled = true;
    const box = this.view.querySelector('.box') ?? this.view;
    box.append(el('p', { class: 'outcome', part: 'outcome', text: said }));
    this.announce(said);
    this.dispatchEvent(
      new CustomEvent<Detail>('elicit-response', { detail, bubbles: true, composed: true }),
    );
  }
}
