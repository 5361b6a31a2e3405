/**
 * What other parts of elicit may use of the web part beyond elicit/web: the browser host page of
 * `elicit demo --web` (its HTML, CSS and CSP), served by the CLI. Not a package export.
 */
export { HOST_CSP, HOST_CSS, HOST_PAGE } from './host/page.ts';
