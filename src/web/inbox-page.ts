/**
 * The inbox page's script (browser), shared by the gateway's inbox and the inbox of the connect
 * pages (`createServer({ inbox })`): lists the questions waiting, a form rendered by
 * `<elicit-form>`, a URL page by `<elicit-url-consent>` with the analysis the server made (as the
 * client pipeline passes it), and posts the person's answer with the page's CSRF token. Where the
 * page's endpoints live is read from `<meta name="inbox">` (`<base>/questions`, `<base>/answer`),
 * so one script serves both. Server text is set with textContent only.
 */
import './index.ts';
import type { ConsentRequest, ElicitUrlConsentElement } from './consent-element.ts';
import type { ElicitFormElement } from './form-element.ts';

/** A waiting question as the page reads it from `<base>/questions`. */
type Question = {
  readonly id: string;
  /** The call behind the question is gone (its process stopped): why, and nothing to answer. */
  readonly failed?: { readonly code: string; readonly message: string };
  readonly server: string;
  readonly tool: string;
  readonly message: string;
} & (
  | { readonly mode: 'form'; readonly requestedSchema: unknown }
  | { readonly mode: 'url'; readonly analysis: ConsentRequest['analysis'] }
);

const meta = (name: string) =>
  document.querySelector<HTMLMetaElement>(`meta[name=${name}]`)?.content;
const csrf = meta('csrf') ?? '';
const base = meta('inbox') ?? '/inbox';
const list = document.getElementById('questions') as HTMLElement;
const empty = document.getElementById('empty') as HTMLElement;
const shown = new Set<string>();
/** Sections by question, to say on them when a question fails after it was shown. */
const sections = new Map<string, HTMLElement>();

/** A failure as the page says it: the server's message and its code. */
function failure(section: HTMLElement, failed: { code: string; message: string }): void {
  if (section.dataset.failed !== undefined) return;
  section.dataset.failed = failed.code;
  const note = document.createElement('p');
  note.className = 'done';
  note.setAttribute('role', 'status');
  note.textContent = `${failed.message} (${failed.code})`;
  section.append(note);
  for (const el of section.querySelectorAll('elicit-form, elicit-url-consent')) el.remove();
}

function render(q: Question): void {
  const section = document.createElement('section');
  const title = document.createElement('h2');
  title.textContent = `${q.server} · ${q.tool}`;
  let form: HTMLElement;
  if (q.mode === 'url') {
    const consent = document.createElement('elicit-url-consent') as ElicitUrlConsentElement;
    consent.request = { server: q.server, message: q.message, analysis: q.analysis };
    form = consent;
  } else {
    const element = document.createElement('elicit-form') as ElicitFormElement;
    element.request = { server: q.server, message: q.message, requestedSchema: q.requestedSchema };
    form = element;
  }
  // What the server was told, in the person's words: a decline is not "an answer received".
  const sent = (action: unknown) =>
    action === 'decline'
      ? 'You declined: the server was told.'
      : action === 'cancel'
        ? 'Cancelled: the server was told.'
        : 'Your answer was received.';
  const say = (text: string) => {
    const note = document.createElement('p');
    note.className = 'done';
    note.textContent = text;
    section.append(note);
  };
  form.addEventListener('elicit-response', (event) => {
    const detail = (event as CustomEvent).detail as Record<string, unknown>;
    void fetch(`${base}/answer`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-elicit-csrf': csrf },
      body: JSON.stringify({ id: q.id, ...detail }),
    })
      .then(async (r) => {
        if (r.status === 410)
          failure(section, (await r.json()) as { code: string; message: string });
        else say(r.ok ? sent(detail.action) : 'This question is not waiting any more.');
      })
      .catch(() => say('Not sent: the server could not be reached. Reload the page to try again.'));
  });
  section.append(title);
  if (q.failed === undefined) section.append(form);
  else failure(section, q.failed);
  sections.set(q.id, section);
  list.append(section);
}

async function poll(): Promise<void> {
  try {
    const r = await fetch(`${base}/questions`, { credentials: 'same-origin' });
    if (r.ok) {
      const questions = (await r.json()) as Question[];
      for (const q of questions)
        if (!shown.has(q.id)) {
          shown.add(q.id);
          render(q);
        } else if (q.failed !== undefined) {
          const section = sections.get(q.id);
          if (section !== undefined) failure(section, q.failed);
        }
      empty.hidden = shown.size > 0;
    }
  } catch {
    // The server is unreachable for now (restarting, network): the next poll tries again.
  } finally {
    setTimeout(poll, 1000);
  }
}
void poll();
