/**
 * What both inboxes say of an answer: the connect pages' (`createServer({ inbox })`, elicit/server)
 * and the gateway's (elicit/gateway). One word, one declaration, below both (the layering table).
 */

/**
 * What the person did on an inbox page: accepted a form with its content, opened a URL page
 * (`opened`), or declined or cancelled. The server of the question checks a form's content
 * against the form again, as any answer.
 */
export type InboxAnswer =
  | { readonly action: 'accept'; readonly content: Record<string, unknown> }
  | { readonly action: 'opened' }
  | { readonly action: 'decline' | 'cancel' };
