/**
 * `<elicit-form>`: renders any form-mode elicitation request of any revision with native inputs,
 * defaults pre-filled, inline validation with the schema core's messages, a review state, and
 * Submit / Decline / Cancel (Escape = cancel; with typed input it asks first). Emits one
 * `elicit-response` event with `{action, content}`; `content` is validated before the event
 * fires. Server text is only ever set as text. The form's state is a FormState
 * (elicit/client), as in the other renderers.
 *
 * Errors appear when the person asks to review, and each stays until the field is changed again
 * (re-checked as they type): leaving a field never moves the layout, so a click that starts on
 * a button ends on it.
 */

import { FormState } from '../client/form-state.ts';
import { inert } from '../client/inert.ts';
import { type CompiledSchema, compileSchema, type Field, formatHint } from '../schema/index.ts';
import { ElicitElement } from './base.ts';
import { confusablesReady, loadConfusables, needsConfusables } from './confusables-lazy.ts';
import { line, saidBlock } from './server-text.ts';
import { el } from './styles.ts';

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
  #state: FormState | undefined;
  #reviewing = false;
  /** The person changed something since the request arrived. */
  #touched = false;
  #actions: HTMLElement | undefined;
  /** Problems of the whole answer (no one field's), shown after Review. */
  #whole: string[] = [];

  get request(): FormElementRequest | undefined {
    return this.#request;
  }

  /** An equal request (a framework re-rendering with a new object) keeps what was typed. */
  set request(request: FormElementRequest | undefined) {
    if (request !== undefined && same(request, this.#request)) {
      this.#request = request;
      return;
    }
    this.#request = request;
    this.reset();
    this.#reviewing = false;
    this.#touched = false;
    this.#whole = [];
    this.#state = undefined;
    if (request !== undefined && !this.#loaded(request)) return;
    if (request !== undefined) {
      try {
        this.#state = new FormState({
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

  /**
   * Whether what the request's schema needs is loaded; if not, shows that it is loading and
   * sets the request again once it is (unless another request came meanwhile).
   */
  #loaded(request: FormElementRequest): boolean {
    if (confusablesReady() || !needsConfusables(request.requestedSchema ?? request.schema?.fields))
      return true;
    loadConfusables().then(
      () => {
        if (this.#request !== request) return;
        this.#request = undefined;
        this.request = request;
        if (this.#focusWhenReady) this.focus();
      },
      (error: unknown) => {
        if (this.#request === request) this.#renderError(String(error));
      },
    );
    this.view.replaceChildren(
      el('div', { class: 'box', part: 'container' }, el('p', { class: 'muted', text: 'Loading…' })),
    );
    return false;
  }

  #focusWhenReady = false;

  /** Focus goes to the first field (or, when reviewing, to Submit). */
  override focus(options?: FocusOptions): void {
    const first = this.root.querySelector<HTMLElement>(
      this.#reviewing ? 'button.primary' : 'input:not(:disabled),select:not(:disabled)',
    );
    this.#focusWhenReady = first === null && this.#state === undefined;
    if (first !== null) first.focus(options);
    else super.focus(options);
  }

  protected outcome(detail: ElicitResponseDetail): string {
    return detail.action === 'accept'
      ? 'Sent.'
      : detail.action === 'decline'
        ? 'Declined.'
        : 'Cancelled.';
  }

  /** Escape with typed input asks before discarding it; Escape again keeps editing. */
  protected override escape(): void {
    if (!this.#touched) super.escape();
    else if (this.root.querySelector('[part=confirm]') !== null) this.#closeConfirm();
    else this.#confirm();
  }

  #renderError(message: string): void {
    this.view.replaceChildren(
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

  #render(): void {
    const state = this.#state;
    const r = this.#request;
    if (state === undefined || r === undefined) {
      this.view.replaceChildren();
      return;
    }
    const id = `e${++uid}`;
    const server = line(r.server, 80);
    // The form is a landmark named by who asks and described by their message: the fields are
    // inside it, so a screen reader ties them to both.
    const form = el('form', {
      part: 'form',
      attrs: {
        novalidate: '',
        'aria-labelledby': `${id}-who`,
        'aria-describedby': `${id}-message`,
      },
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (this.answered) return;
      if (this.#reviewing) this.#submit();
      else this.#review();
    });
    form.append(
      el(
        'header',
        { part: 'header' },
        el('p', {
          class: 'who',
          part: 'server',
          text: `${server} asks`,
          attrs: { id: `${id}-who`, dir: 'auto' },
        }),
        saidBlock(server, r.message, `${id}-message`),
        ...state
          .cautions()
          .map((text) => el('p', { class: 'warn', part: 'caution', text, attrs: { dir: 'auto' } })),
      ),
    );
    if (this.#reviewing) {
      const list = el('dl', { part: 'review' });
      for (const f of state.fields)
        list.append(
          el('dt', { text: line(f.title ?? f.name, 200), attrs: { dir: 'auto' } }),
          el('dd', { text: state.display(f, line), attrs: { dir: 'auto' } }),
        );
      form.append(el('p', { class: 'muted', text: 'Check your answers before sending.' }), list);
    } else {
      for (const f of state.fields) form.append(this.#field(state, f));
      form.append(el('p', { class: 'error', part: 'error', text: this.#whole.join(' ') }));
    }
    const actions = el('div', { class: 'actions', part: 'actions' });
    this.#actions = actions;
    this.#fillActions();
    form.append(actions);
    this.view.replaceChildren(el('div', { class: 'box', part: 'container' }, form));
  }

  #fillActions(): void {
    this.#actions?.replaceChildren(
      el('button', {
        class: 'primary',
        part: 'submit',
        text: this.#reviewing ? 'Submit' : 'Review',
        attrs: { type: 'submit' },
      }),
      this.#reviewing ? this.#button('Edit', () => this.#edit()) : '',
      this.#button('Decline', () => this.finish({ action: 'decline' }), 'decline'),
      this.#button('Cancel', () => this.finish({ action: 'cancel' }), 'cancel'),
    );
  }

  #confirm(): void {
    const keep = this.#button('Keep editing', () => this.#closeConfirm(), 'keep');
    const discard = this.#button(
      'Discard and cancel',
      () => this.finish({ action: 'cancel' }),
      'discard',
    );
    const question = `q${++uid}`;
    this.#actions?.replaceChildren(
      el(
        'div',
        {
          class: 'actions',
          part: 'confirm',
          attrs: { role: 'group', 'aria-labelledby': question },
        },
        el('p', { text: 'Discard what you entered and cancel?', attrs: { id: question } }),
        keep,
        discard,
      ),
    );
    this.#returnTo = this.root.activeElement as HTMLElement | null;
    keep.focus();
  }

  #returnTo: HTMLElement | null = null;

  #closeConfirm(): void {
    this.#fillActions();
    const back = this.#returnTo;
    this.#returnTo = null;
    if (back?.isConnected) back.focus();
    else this.focus();
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

  #field(state: FormState, f: Field): HTMLElement {
    const id = `f${++uid}`;
    const errorId = `${id}-error`;
    const hintId = `${id}-hint`;
    const error = state.error(f.name);
    const label = `${line(f.title ?? f.name, 200)}${f.required ? '' : ' (optional)'}`;
    // The error is always referenced; while it is empty it says nothing.
    const describedBy = [f.description === undefined ? '' : hintId, errorId]
      .filter(Boolean)
      .join(' ');
    const wrap = el('div', { part: 'field', attrs: { 'data-field': f.name } });
    const hint =
      f.description === undefined
        ? undefined
        : el('p', {
            class: 'hint',
            text: inert(f.description, 1000),
            attrs: { id: hintId, dir: 'auto' },
          });
    const errorNode = el('p', {
      class: 'error',
      part: 'error',
      text: error ?? '',
      attrs: { id: errorId },
    });
    const invalid = (problem: string | undefined) => (problem === undefined ? 'false' : 'true');
    // Shows the field's error (or none); the state keeps what was entered.
    const show = (problem: string | undefined) => {
      errorNode.textContent = problem ?? '';
      for (const node of wrap.querySelectorAll('input,select,fieldset'))
        node.setAttribute('aria-invalid', invalid(problem));
    };
    const set = (value: unknown) => {
      this.#touched = true;
      show(state.set(f, value));
    };
    const current = state.value(f.name);
    if (
      f.kind === 'boolean' ||
      f.kind === 'multiselect' ||
      (f.kind === 'select' && f.options.length <= 5)
    ) {
      const radios = f.kind !== 'multiselect' && !(f.kind === 'boolean' && f.required);
      const group = el(
        'fieldset',
        {
          attrs: {
            'aria-describedby': describedBy,
            'aria-invalid': invalid(error),
            ...(radios ? { role: 'radiogroup' } : {}),
            ...(f.required && radios ? { 'aria-required': 'true' } : {}),
          },
        },
        el('legend', { text: label, attrs: { dir: 'auto' } }),
      );
      const choice = (input: HTMLInputElement, text: string) =>
        group.append(
          el('label', { class: 'choice', attrs: { for: input.id, dir: 'auto' } }, input, text),
        );
      if (f.kind === 'boolean' && f.required) {
        // Required: a checkbox, whose unchecked state is an answer (No).
        const box = el('input', {
          attrs: { type: 'checkbox', id, name: f.name, 'aria-invalid': invalid(error) },
        });
        box.checked = current === true;
        box.addEventListener('change', () => set(box.checked));
        choice(box, 'Yes');
      } else if (f.kind === 'boolean') {
        // Optional: None / Yes / No, so "not answered" stays distinct from No.
        const choices: [string, string, boolean | undefined][] = [
          ['', 'None', undefined],
          ['yes', 'Yes', true],
          ['no', 'No', false],
        ];
        for (const [value, text, answer] of choices) {
          const radio = el('input', {
            attrs: {
              type: 'radio',
              id: `${id}-${value || 'none'}`,
              name: `${id}-${f.name}`,
              value,
            },
          });
          radio.checked = current === answer;
          radio.addEventListener('change', () => set(answer));
          choice(radio, text);
        }
      } else {
        const multi = f.kind === 'multiselect';
        if (!multi && !f.required) {
          // An optional choice can be left empty, also after picking one.
          const none = el('input', {
            attrs: { type: 'radio', id: `${id}-none`, name: `${id}-${f.name}`, value: '' },
          });
          none.checked = current === undefined;
          none.addEventListener('change', () => set(undefined));
          choice(none, 'None');
        }
        f.options.forEach((o, i) => {
          const input = el('input', {
            attrs: {
              type: multi ? 'checkbox' : 'radio',
              id: `${id}-${i}`,
              name: `${id}-${f.name}`,
              value: o.value,
              ...(multi ? { 'aria-invalid': invalid(error) } : {}),
            },
          });
          input.checked = multi
            ? Array.isArray(current) && current.includes(o.value)
            : current === o.value;
          input.addEventListener('change', () => {
            if (!multi) return set(o.value);
            set([...group.querySelectorAll<HTMLInputElement>('input:checked')].map((x) => x.value));
          });
          choice(input, line(o.label, 200));
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
      wrap.append(group, hint ?? '', errorNode);
      return wrap;
    }
    wrap.append(el('label', { text: label, attrs: { for: id, dir: 'auto' } }));
    let input: HTMLInputElement | HTMLSelectElement;
    if (f.kind === 'select') {
      const select = el('select', { attrs: { id, name: f.name } });
      select.append(el('option', { text: 'Choose…', attrs: { value: '' } }));
      for (const o of f.options) {
        const opt = el('option', { text: line(o.label, 200), attrs: { value: o.value } });
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
      const text = el('input', { attrs: { id, name: f.name, type, dir: 'auto' } });
      if (f.kind === 'number') {
        if (f.minimum !== undefined) text.min = String(f.minimum);
        if (f.maximum !== undefined) text.max = String(f.maximum);
        text.step = f.integer ? '1' : 'any';
      } else {
        if (f.maxLength !== undefined) text.maxLength = f.maxLength;
        if (f.minLength !== undefined) text.minLength = f.minLength;
      }
      const entered = state.text(f.name);
      text.value =
        f.kind === 'text' && f.format === 'date-time' && !state.error(f.name)
          ? entered.slice(0, 16)
          : entered;
      if (f.kind === 'text' && f.format !== undefined)
        text.placeholder = formatHint(f.format).replace(/^Enter /, '');
      // Each keystroke goes to the state; a shown error is re-checked as they type, and
      // leaving the field changes nothing on screen.
      text.addEventListener('input', () => {
        this.#touched = true;
        let raw = text.value;
        // datetime-local has no offset: the person's local time, sent in UTC.
        if (f.kind === 'text' && f.format === 'date-time' && raw !== '') {
          const at = new Date(raw);
          if (!Number.isNaN(at.getTime())) raw = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
        }
        const problem = state.enter(f, raw);
        if (errorNode.textContent !== '') show(problem);
      });
      input = text;
    }
    if (f.required) input.setAttribute('aria-required', 'true');
    input.setAttribute('aria-describedby', describedBy);
    input.setAttribute('aria-invalid', invalid(error));
    wrap.append(input, hint ?? '', errorNode);
    return wrap;
  }

  #review(): void {
    const state = this.#state as FormState;
    // Checkboxes answer even untouched: a required yes/no is No, a required multi-select is none.
    for (const f of state.fields)
      if (f.required && state.value(f.name) === undefined) {
        if (f.kind === 'boolean') state.set(f, false);
        else if (f.kind === 'multiselect') state.set(f, []);
      }
    const result = state.submit();
    this.#whole = result.ok
      ? []
      : result.problems.filter((p) => p.field === undefined).map((p) => inert(p.message, 500));
    if (!result.ok) {
      this.#render();
      const count = result.problems.length;
      // One announcement; the focused field then reads its own error.
      this.announce(
        count === 1 ? 'One answer needs attention.' : `${count} answers need attention.`,
      );
      this.root.querySelector<HTMLElement>('[aria-invalid="true"]:not(fieldset)')?.focus();
      return;
    }
    this.#reviewing = true;
    this.#render();
    this.root.querySelector<HTMLButtonElement>('button.primary')?.focus();
  }

  #edit(): void {
    this.#reviewing = false;
    this.#render();
    this.focus();
  }

  #submit(): void {
    const state = this.#state as FormState;
    const result = state.submit();
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

/** Equal requests: same text, and the same schema, issues and initial values as JSON. */
function same(a: FormElementRequest, b: FormElementRequest | undefined): boolean {
  if (b === undefined || a.server !== b.server || a.message !== b.message) return false;
  if (a.schema !== b.schema) return false;
  try {
    return (
      JSON.stringify([a.requestedSchema, a.issues, a.initial]) ===
      JSON.stringify([b.requestedSchema, b.issues, b.initial])
    );
  } catch {
    return false;
  }
}
