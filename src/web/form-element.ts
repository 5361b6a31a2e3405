/**
 * `<elicit-form>`: renders any form-mode elicitation request of any revision with native inputs,
 * defaults pre-filled, inline validation with the schema core's messages, a review state, and
 * Submit / Decline / Cancel (Escape = cancel). Emits one `elicit-response` event with
 * `{action, content}`; `content` is validated before the event fires. Server text is only ever
 * set as text.
 */
import {
  applyDefaults,
  type CompiledSchema,
  coerceText,
  compileSchema,
  type Field,
  formatHint,
} from '../schema/index.ts';
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
  #schema: CompiledSchema | undefined;
  #values: Record<string, unknown> = {};
  #errors = new Map<string, string>();
  #reviewing = false;

  get request(): FormElementRequest | undefined {
    return this.#request;
  }

  set request(request: FormElementRequest | undefined) {
    this.#request = request;
    this.reset();
    this.#reviewing = false;
    this.#errors.clear();
    try {
      this.#schema =
        request === undefined
          ? undefined
          : (request.schema ?? compileSchema(request.requestedSchema));
    } catch (error) {
      this.#schema = undefined;
      this.#renderError((error as Error).message);
      return;
    }
    if (this.#schema !== undefined) {
      this.#values = { ...applyDefaults(this.#schema, {}), ...(request?.initial ?? {}) };
      for (const i of request?.issues ?? [])
        if (i.field !== undefined) this.#errors.set(i.field, i.message);
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
          text: `This request cannot be shown: ${message}`,
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
      el('div', { class: 'who', part: 'server', text: `${r.server} asks` }),
      el('p', { class: 'message', part: 'message', text: r.message }),
    );
  }

  #render(): void {
    const schema = this.#schema;
    if (schema === undefined) {
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
      for (const f of schema.fields)
        list.append(el('dt', { text: f.title ?? f.name }), el('dd', { text: this.#display(f) }));
      form.append(el('p', { class: 'muted', text: 'Check your answers before sending.' }), list);
    } else {
      for (const f of schema.fields) form.append(this.#field(f));
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

  #display(f: Field): string {
    const v = this.#values[f.name];
    if (v === undefined) return '—';
    if (f.kind === 'select') return f.options.find((o) => o.value === v)?.label ?? String(v);
    if (f.kind === 'multiselect')
      return (
        (v as string[]).map((x) => f.options.find((o) => o.value === x)?.label ?? x).join(', ') ||
        '(none)'
      );
    if (f.kind === 'boolean') return v ? 'Yes' : 'No';
    return String(v);
  }

  #field(f: Field): HTMLElement {
    const id = `f${++uid}`;
    const errorId = `${id}-error`;
    const hintId = `${id}-hint`;
    const error = this.#errors.get(f.name);
    const label = `${f.title ?? f.name}${f.required ? '' : ' (optional)'}`;
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
        : el('p', { class: 'hint', text: f.description, attrs: { id: hintId } });
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
    const set = (value: unknown) => {
      if (value === undefined) delete this.#values[f.name];
      else this.#values[f.name] = value;
      const problem =
        value === undefined
          ? f.required
            ? 'This field is required.'
            : undefined
          : this.#schema
              ?.validate({ [f.name]: value })
              .find((i) => i.field === f.name && i.code !== 'required')?.message;
      if (problem === undefined) this.#errors.delete(f.name);
      else this.#errors.set(f.name, problem);
      errorNode.textContent = problem ?? '';
      errorNode.hidden = problem === undefined;
      for (const input of wrap.querySelectorAll('input,select')) {
        input.setAttribute('aria-invalid', problem === undefined ? 'false' : 'true');
      }
    };
    const current = this.#values[f.name];
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
      if (f.kind === 'boolean') {
        const box = el('input', { attrs: { type: 'checkbox', id, name: f.name } });
        box.checked = current === true;
        box.addEventListener('change', () => set(box.checked));
        group.append(
          el('label', { class: 'choice', attrs: { for: id } }, box, document.createTextNode('Yes')),
        );
      } else {
        const multi = f.kind === 'multiselect';
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
              document.createTextNode(o.label),
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
        const opt = el('option', { text: o.label, attrs: { value: o.value } });
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
      text.value =
        current === undefined
          ? ''
          : f.kind === 'text' && f.format === 'date-time'
            ? String(current).slice(0, 16)
            : String(current);
      if (f.kind === 'text' && f.format !== undefined)
        text.placeholder = formatHint(f.format).replace(/^Enter /, '');
      text.addEventListener('change', () => {
        let raw = text.value;
        // datetime-local has no offset: the person's local time, sent in UTC.
        if (f.kind === 'text' && f.format === 'date-time' && raw !== '')
          raw = new Date(raw).toISOString().replace(/\.\d{3}Z$/, 'Z');
        const coerced = coerceText(f, raw);
        if (!coerced.ok) {
          this.#errors.set(f.name, coerced.message);
          errorNode.textContent = coerced.message;
          errorNode.hidden = false;
          text.setAttribute('aria-invalid', 'true');
          return;
        }
        set(coerced.value);
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
    const schema = this.#schema as CompiledSchema;
    // Pick up values typed but not yet committed by a change event.
    for (const input of this.root.querySelectorAll<HTMLInputElement>(
      'input[type=text],input[type=email],input[type=url],input[type=date],input[type=number],input[type=datetime-local]',
    )) {
      input.dispatchEvent(new Event('change'));
    }
    for (const issue of schema.validate(applyDefaults(schema, this.#values))) {
      if (issue.field !== undefined) this.#errors.set(issue.field, issue.message);
    }
    if (this.#errors.size > 0) {
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
    const schema = this.#schema as CompiledSchema;
    const parsed = schema.parse(this.#values);
    if (!parsed.ok) {
      for (const i of parsed.issues)
        if (i.field !== undefined) this.#errors.set(i.field, i.message);
      this.#reviewing = false;
      this.#render();
      return;
    }
    this.finish({ action: 'accept', content: { ...parsed.value } });
  }
}
