/**
 * elicit/web: framework-free custom elements for elicitation, and a renderer for elicit/client.
 * Importing this module defines `<elicit-form>` and `<elicit-url-consent>`.
 */
import { ElicitUrlConsentElement } from './consent-element.ts';
import { ElicitFormElement } from './form-element.ts';

if (typeof customElements !== 'undefined') {
  if (customElements.get('elicit-form') === undefined)
    customElements.define('elicit-form', ElicitFormElement);
  if (customElements.get('elicit-url-consent') === undefined)
    customElements.define('elicit-url-consent', ElicitUrlConsentElement);
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
export { type WebRendererOptions, webRenderer } from './renderer.ts';
