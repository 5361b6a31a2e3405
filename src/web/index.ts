/**
 * elicit/web: framework-free custom elements for elicitation, and a renderer for elicit/client.
 * Importing this module defines `<elicit-form>` and `<elicit-url-consent>`, and types them for
 * `document.createElement`/`querySelector` (React 19 JSX types: `elicit/web/react`).
 */
import { ElicitUrlConsentElement } from './consent-element.ts';
import { ElicitFormElement } from './form-element.ts';

if (typeof customElements !== 'undefined') {
  if (customElements.get('elicit-form') === undefined)
    customElements.define('elicit-form', ElicitFormElement);
  if (customElements.get('elicit-url-consent') === undefined)
    customElements.define('elicit-url-consent', ElicitUrlConsentElement);
}

declare global {
  interface HTMLElementTagNameMap {
    'elicit-form': ElicitFormElement;
    'elicit-url-consent': ElicitUrlConsentElement;
  }
}

export {
  type ConsentDetail,
  type ConsentRequest,
  ElicitUrlConsentElement,
} from './consent-element.ts';
export {
  ElicitFormElement,
  type ElicitResponseDetail,
  type FormElementRequest,
} from './form-element.ts';
export { CONSENT_ARM_MS, MESSAGE_LIMITS } from './limits.ts';
export { type WebRendererOptions, webRenderer } from './renderer.ts';
