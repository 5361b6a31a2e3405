/**
 * `<elicit-form>`: renders any form-mode elicitation request of any revision with native inputs,
 * defaults pre-filled, inline validation with the schema core's messages, a review state, and
 * Submit / Decline / Cancel (Escape = cancel). Emits one `elicit-response` event with
 * `{action, content}`; `content` is validated before the event fires. Server text is only ever
 * set as text. The form's state is a FormSession (elicit/client), as in the other renderers.
 */
import { inert } from '../client/inert.ts';
import { FormSession } from '../client/session.ts';
import { type CompiledSchema, compileSchema, type Field, formatHint } from '../schema/index.ts';
import { ElicitElement } from './base.ts';
import { BASE_CSS, el } from './styles.ts';

export interface FormElementRequest {
  /** Who asks (show it; it is not proof of anything). */
  readonly server: string;
  readonly message: string;
  /** The raw requestedSchema, or an already compiled schema. */
  readonly requestedSchema?: unknown;
  readonly schema?: CompiledSchema;
  /** Errors from a previous attempt, by field. */
  readonly issues?: readonly { field: string | undefined; message: string }[];
  readonly initial?: Readonly<Record<string, unknown>>;
}

export type ElicitResponseDetail =
  | { action: 'accept'; content: Record<string, unknown> }
  | { action: 'decline' }
  | { action: 'cancel' };

let uid = 0;

export class ElicitFormElement extends ElicitElement<ElicitResponseDetail> {
  #request: FormElementRequest | undefined;
  #session: FormSession | undefined;
  #reviewing = false;

  get request(): FormElementRequest | undefined {
    return this.#request;
  }

  set request(request: FormElementRequest | undefined) {
    this.#request = request;
    this.reset();
    this.#reviewing = false;
    this.#session = undefined;
    if (request !== undefined) {
      try {
        this.#session = new FormSession({
          schema: request.schema ?? compileSchema(request.requestedSchema),
          issues: request.issues ?? [],
          ...(request.initial === undefined ? {} : { initial: request.initial }),
        });
      } catch (error) {
        this.#renderError((error as Error).message);
        return;
      }
    }
    this.#render();
  }

  #renderError(message: string): void {
    this.root.replaceChildren(
      el('style', { text: BASE_CSS }),
      el(
        'div',
        { class: 'box', part: 'container' },
        el('p', {
          class: 'error',
          text: `This request cannot be shown: ${inert(message, 500)}`,
          attrs: { role: 'alert' },
        }),
      ),
    );
  }

  #header(): HTMLElement {
    const r = this.#request as FormElementRequest;
    return el(
      'header',
      { part: 'header' },
      el('div', { class: 'who', part: 'server', text: `${inert(r.server, 80, false)} asks` }),
      el('p', { class: 'message', part: 'message', text: inert(r.message, 2000) }),
      ...(this.#session?.cautions() ?? []).map((text) =>
        el('p', { class: 'warn', part: 'caution', text, attrs: { role: 'note' } }),
      ),
    );
  }

  #render(): void {
    const session = this.#session;
    if (session === undefined) {
      this.root.replaceChildren();
      return;
    }
    const form = el('form', { part: 'form', attrs: { novalidate: '' } });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (this.#reviewing) this.#submit();
      else this.#review();
    });
    if (this.#reviewing) {
      const list = el('dl', { part: 'review' });
      for (const f of session.fields)
        list.append(
          el('dt', { text: inert(f.title ?? f.name, 200, false) }),
          el('dd', { text: session.display(f, asText) }),
        );
      form.append(el('p', { class: 'muted', text: 'Check your answers before sending.' }), list);
    } else {
      for (const f of session.fields) form.append(this.#field(session, f));
    }
    const actions = el(
      'div',
      { class: 'actions', part: 'actions' },
      el('button', {
        class: 'primary',
        part: 'submit',
        text: this.#reviewing ? 'Submit' : 'Review',
        attrs: { type: 'submit' },
      }),
      this.#reviewing ? this.#button('Edit', () => this.#edit()) : undefined,
      this.#button('Decline', () => this.finish({ action: 'decline' }), 'decline'),
      this.#button('Cancel', () => this.finish({ action: 'cancel' }), 'cancel'),
    );
    form.append(actions);
    this.root.replaceChildren(
      el('style', { text: BASE_CSS }),
      el('div', { class: 'box', part: 'container' }, this.#header(), form),
    );
  }

  #button(text: string, onClick: () => void, part?: string): HTMLButtonElement {
    const b = el('button', {
      text,
      attrs: { type: 'button' },
      ...(part === undefined ? {} : { part }),
    });
    b.addEventListener('click', onClick);
    return b;
  }

  #field(session: FormSession, f: Field): HTMLElement {
    const id = `f${++uid}`;
    const errorId = `${id}-error`;
    const hintId = `${id}-hint`;
    const error = session.error(f.name);
    const label = `${inert(f.title ?? f.name, 200, false)}${f.required ? '' : ' (optional)'}`;
    const describedBy = [
      f.description === undefined ? '' : hintId,
      error === undefined ? '' : errorId,
    ]
      .filter(Boolean)
      .join(' ');
    const wrap = el('div', { part: 'field', attrs: { 'data-field': f.name } });
    const hint =
      f.description === undefined
        ? undefined
        : el('p', { class: 'hint', text: inert(f.description, 1000), attrs: { id: hintId } });
    const errorNode = el('p', {
      class: 'error',
      part: 'error',
      text: error ?? '',
      attrs: {
        id: errorId,
        role: 'alert',
        'aria-live': 'polite',
        ...(error === undefined ? { hidden: '' } : {}),
      },
    });
    // Shows the field's error (or none) after a change; the session keeps what was entered.
    const show = (problem: string | undefined) => {
      errorNode.textContent = problem ?? '';
      errorNode.hidden = problem === undefined;
      for (const input of wrap.querySelectorAll('input,select')) {
        input.setAttribute('aria-invalid', problem === undefined ? 'false' : 'true');
      }
    };
    const set = (value: unknown) => show(session.set(f, value));
    const current = session.value(f.name);
    if (
      f.kind === 'boolean' ||
      f.kind === 'multiselect' ||
      (f.kind === 'select' && f.options.length <= 5)
    ) {
      const group = el(
        'fieldset',
        { attrs: { ...(describedBy === '' ? {} : { 'aria-describedby': describedBy }) } },
        el('legend', { text: label }),
      );
      if (f.kind === 'boolean' && f.required) {
        // Required: a checkbox, whose unchecked state is an answer (No).
        const box = el('input', { attrs: { type: 'checkbox', id, name: f.name } });
        box.checked = current === true;
        box.addEventListener('change', () => set(box.checked));
        group.append(
          el('label', { class: 'choice', attrs: { for: id } }, box, document.createTextNode('Yes')),
        );
      } else if (f.kind === 'boolean') {
        // Optional: None / Yes / No, so "not answered" stays distinct from No.
        const choices: [string, string, boolean | undefined][] = [
          ['', 'None', undefined],
          ['yes', 'Yes', true],
          ['no', 'No', false],
        ];
        for (const [value, text, answer] of choices) {
          const oid = `${id}-${value || 'none'}`;
          const radio = el('input', {
            attrs: { type: 'radio', id: oid, name: `${id}-${f.name}`, value },
          });
          radio.checked = current === answer;
          radio.addEventListener('change', () => set(answer));
          group.append(
            el(
              'label',
              { class: 'choice', attrs: { for: oid } },
              radio,
              document.createTextNode(text),
            ),
          );
        }
      } else {
        const multi = f.kind === 'multiselect';
        if (!multi && !f.required) {
          // An optional choice can be left empty, also after picking one.
          const oid = `${id}-none`;
          const none = el('input', {
            attrs: { type: 'radio', id: oid, name: `${id}-${f.name}`, value: '' },
          });
          none.checked = current === undefined;
          none.addEventListener('change', () => set(undefined));
          group.append(
            el(
              'label',
              { class: 'choice', attrs: { for: oid } },
              none,
              document.createTextNode('None'),
            ),
          );
        }
        f.options.forEach((o, i) => {
          const oid = `${id}-${i}`;
          const input = el('input', {
            attrs: {
              type: multi ? 'checkbox' : 'radio',
              id: oid,
              name: `${id}-${f.name}`,
              value: o.value,
            },
          });
          input.checked = multi
            ? Array.isArray(current) && current.includes(o.value)
            : current === o.value;
          input.addEventListener('change', () => {
            if (!multi) return set(o.value);
            const chosen = [...group.querySelectorAll<HTMLInputElement>('input:checked')].map(
              (x) => x.value,
            );
            set(chosen);
          });
          group.append(
            el(
              'label',
              { class: 'choice', attrs: { for: oid } },
              input,
              document.createTextNode(inert(o.label, 200, false)),
            ),
          );
        });
        if (multi && (f.minItems !== undefined || f.maxItems !== undefined)) {
          group.append(
            el('p', {
              class: 'hint',
              text: `Choose ${f.minItems ?? 0} to ${f.maxItems ?? f.options.length}.`,
            }),
          );
        }
      }
      wrap.append(group, hint ?? document.createTextNode(''), errorNode);
      return wrap;
    }
    wrap.append(el('label', { text: label, attrs: { for: id } }));
    let input: HTMLInputElement | HTMLSelectElement;
    if (f.kind === 'select') {
      const select = el('select', { attrs: { id, name: f.name } });
      select.append(el('option', { text: 'Choose…', attrs: { value: '' } }));
      for (const o of f.options) {
        const opt = el('option', { text: inert(o.label, 200, false), attrs: { value: o.value } });
        opt.selected = current === o.value;
        select.append(opt);
      }
      select.addEventListener('change', () => set(select.value === '' ? undefined : select.value));
      input = select;
    } else {
      const type =
        f.kind === 'number'
          ? 'number'
          : f.format === 'email'
            ? 'email'
            : f.format === 'uri'
              ? 'url'
              : f.format === 'date'
                ? 'date'
                : f.format === 'date-time'
                  ? 'datetime-local'
                  : 'text';
      const text = el('input', { attrs: { id, name: f.name, type } });
      if (f.kind === 'number') {
        if (f.minimum !== undefined) text.min = String(f.minimum);
        if (f.maximum !== undefined) text.max = String(f.maximum);
        text.step = f.integer ? '1' : 'any';
      } else {
        if (f.maxLength !== undefined) text.maxLength = f.maxLength;
        if (f.minLength !== undefined) text.minLength = f.minLength;
      }
      const entered = session.text(f.name);
      text.value =
        f.kind === 'text' && f.format === 'date-time' && !session.error(f.name)
          ? entered.slice(0, 16)
          : entered;
      if (f.kind === 'text' && f.format !== undefined)
        text.placeholder = formatHint(f.format).replace(/^Enter /, '');
      text.addEventListener('change', () => {
        let raw = text.value;
        // datetime-local has no offset: the person's local time, sent in UTC.
        if (f.kind === 'text' && f.format === 'date-time' && raw !== '')
          raw = new Date(raw).toISOString().replace(/\.\d{3}Z$/, 'Z');
        show(session.enter(f, raw));
      });
      input = text;
    }
    if (f.required) input.setAttribute('aria-required', 'true');
    if (describedBy !== '') input.setAttribute('aria-describedby', describedBy);
    input.setAttribute('aria-invalid', error === undefined ? 'false' : 'true');
    wrap.append(input, hint ?? document.createTextNode(''), errorNode);
    return wrap;
  }

  #review(): void {
    const session = this.#session as FormSession;
    // Pick up values typed but not yet committed by a change event.
    for (const input of this.root.querySelectorAll<HTMLInputElement>(
      'input[type=text],input[type=email],input[type=url],input[type=date],input[type=number],input[type=datetime-local]',
    )) {
      input.dispatchEvent(new Event('change'));
    }
    // Checkboxes answer even untouched: a required yes/no is No, a required multi-select is none.
    for (const f of session.fields)
      if (f.required && session.value(f.name) === undefined) {
        if (f.kind === 'boolean') session.set(f, false);
        else if (f.kind === 'multiselect') session.set(f, []);
      }
    if (!session.submit().ok) {
      this.#render();
      const first = this.root.querySelector<HTMLElement>('[aria-invalid="true"]');
      first?.focus();
      return;
    }
    this.#reviewing = true;
    this.#render();
    this.root.querySelector<HTMLButtonElement>('button.primary')?.focus();
  }

  #edit(): void {
    this.#reviewing = false;
    this.#render();
    this.root.querySelector<HTMLElement>('input,select')?.focus();
  }

  #submit(): void {
    const session = this.#session as FormSession;
    const result = session.submit();
    if (!result.ok) {
      this.#reviewing = false;
      this.#render();
      return;
    }
    // What the person entered, as entered: filling in defaults is the host's choice (the client
    // pipeline does it), not the form's.
    this.finish({ action: 'accept', content: result.content });
  }
}

/** The elements set server text with textContent, so it needs no escaping, only a length cap. */
const asText = (text: string, max: number) => inert(text, max, false);
