/**
 * The inbox page's script (browser): lists the questions waiting, a form rendered by
 * `<elicit-form>`, a URL page by `<elicit-url-consent>` with the gateway's analysis (as the
 * client pipeline passes it), and posts the person's answer with the page's CSRF token. Server
 * text is set with textContent only.
 */
import '../web/index.ts';
import type { ElicitUrlConsentElement } from '../web/consent-element.ts';
import type { ElicitFormElement } from '../web/form-element.ts';
import type { InboxQuestion as Question } from './inbox.ts';

const csrf = document.querySelector<HTMLMetaElement>('meta[name=csrf]')?.content ?? '';
const list = document.getElementById('questions') as HTMLElement;
const empty = document.getElementById('empty') as HTMLElement;
const shown = new Set<string>();

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
  const say = (text: string) => {
    const note = document.createElement('p');
    note.className = 'done';
    note.textContent = text;
    section.append(note);
  };
  form.addEventListener('elicit-response', (event) => {
    const detail = (event as CustomEvent).detail as Record<string, unknown>;
    void fetch('/inbox/answer', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-elicit-csrf': csrf },
      body: JSON.stringify({ id: q.id, ...detail }),
    })
      .then((r) => say(r.ok ? 'Sent.' : 'This question is not waiting any more.'))
      .catch(() =>
        say('Not sent: the gateway could not be reached. Reload the page to try again.'),
      );
  });
  section.append(title, form);
  list.append(section);
}

async function poll(): Promise<void> {
  try {
    const r = await fetch('/inbox/questions', { credentials: 'same-origin' });
    if (r.ok) {
      const questions = (await r.json()) as Question[];
      for (const q of questions)
        if (!shown.has(q.id)) {
          shown.add(q.id);
          render(q);
        }
      empty.hidden = shown.size > 0;
    }
  } catch {
    // The gateway is unreachable for now (restarting, network): the next poll tries again.
  } finally {
    setTimeout(poll, 1000);
  }
}
void poll();
