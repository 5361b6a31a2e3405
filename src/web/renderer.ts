/**
 * Plugs the elements into elicit/client as a Renderer: each request mounts an element in the
 * container, and its `elicit-response` event answers the pipeline.
 */
import type {
  FormRequest,
  FormResponse,
  Renderer,
  UrlRequest,
  UrlResponse,
} from '../client/index.ts';
import type { ConsentDetail, ElicitUrlConsentElement } from './consent-element.ts';
import type { ElicitFormElement, ElicitResponseDetail } from './form-element.ts';

export interface WebRendererOptions {
  /** Where elements are mounted (each is removed after it answers). */
  readonly container: HTMLElement;
  /** Things to tell the person without a question (rate limiting, completions). */
  readonly notice?: Renderer['notice'];
}

function await_<T>(element: HTMLElement, signal: AbortSignal, onAbort: T): Promise<T> {
  return new Promise((resolve) => {
    const done = (value: T) => {
      signal.removeEventListener('abort', abort);
      element.remove();
      resolve(value);
    };
    const abort = () => done(onAbort);
    signal.addEventListener('abort', abort, { once: true });
    element.addEventListener('elicit-response', (e) => done((e as CustomEvent<T>).detail), {
      once: true,
    });
  });
}

export function webRenderer(options: WebRendererOptions): Renderer {
  return {
    async form(request: FormRequest, signal: AbortSignal): Promise<FormResponse> {
      const element = document.createElement('elicit-form') as ElicitFormElement;
      options.container.append(element);
      element.request = {
        server: request.server.title ?? request.server.name,
        message: request.message,
        schema: request.schema,
        issues: request.issues,
        initial: request.initial,
      };
      element.focus();
      const detail = await await_<ElicitResponseDetail>(element, signal, { action: 'cancel' });
      return detail;
    },
    async url(request: UrlRequest, signal: AbortSignal): Promise<UrlResponse> {
      const element = document.createElement('elicit-url-consent') as ElicitUrlConsentElement;
      options.container.append(element);
      element.request = {
        server: request.server.title ?? request.server.name,
        message: request.message,
        analysis: request.analysis,
        open: () => request.open(),
      };
      element.focus();
      return await_<ConsentDetail>(element, signal, { action: 'cancel' });
    },
    ...(options.notice === undefined ? {} : { notice: options.notice }),
  };
}
