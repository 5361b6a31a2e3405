/**
 * elicit/web/react: the elements in React 19 JSX, as types only (nothing of React is imported at
 * run time, and elicit/web itself does not need React's types). React 19 sets `request` as a
 * property and `onelicit-response` as an `elicit-response` listener. Use it with
 * `import type {} from 'elicit/web/react'` once in the app, or in tsconfig's `types`.
 */
import type {} from 'react';
import type { ConsentDetail, ConsentRequest, ElicitUrlConsentElement } from './consent-element.ts';
import type {
  ElicitFormElement,
  ElicitResponseDetail,
  FormElementRequest,
} from './form-element.ts';

/** The props of an elicit element in JSX: its `request` and its one event. */
export type ElicitElementProps<E extends HTMLElement, Request, Detail> = Omit<
  import('react').HTMLAttributes<E>,
  'onChange'
> &
  import('react').RefAttributes<E> & {
    request?: Request | undefined;
    'onelicit-response'?: (event: CustomEvent<Detail>) => void;
  };

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'elicit-form': ElicitElementProps<
        ElicitFormElement,
        FormElementRequest,
        ElicitResponseDetail
      >;
      'elicit-url-consent': ElicitElementProps<
        ElicitUrlConsentElement,
        ConsentRequest,
        ConsentDetail
      >;
    }
  }
}
