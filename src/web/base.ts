/**
 * What both elements share: an open shadow root that delegates focus, Escape = cancel, and
 * exactly one `elicit-response` event per request.
 */
export abstract class ElicitElement<Detail> extends HTMLElement {
  protected readonly root: ShadowRoot;
  private answered = false;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open', delegatesFocus: true });
    this.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.finish({ action: 'cancel' } as Detail);
      }
    });
  }

  /** A new request may be answered again. */
  protected reset(): void {
    this.answered = false;
  }

  protected finish(detail: Detail): void {
    if (this.answered) return;
    this.answered = true;
    this.dispatchEvent(
      new CustomEvent<Detail>('elicit-response', { detail, bubbles: true, composed: true }),
    );
  }
}
