/**
 * Shared element styles: themable with CSS custom properties and ::part, light and dark. Colours
 * meet WCAG AA in both schemes (text 4.5:1, borders and the focus ring 3:1 against the box).
 */
export const BASE_CSS = `
:host{display:block;color-scheme:light dark;font:var(--elicit-font,15px/1.45 system-ui,sans-serif);
  --_fg:var(--elicit-fg,#1b1b1f);--_bg:var(--elicit-bg,#fff);--_muted:var(--elicit-muted,#55555f);
  --_border:var(--elicit-border,#707080);--_accent:var(--elicit-accent,#2554c7);--_on-accent:var(--elicit-on-accent,#fff);
  --_danger:var(--elicit-danger,#a4000f);--_warn:var(--elicit-warn,#8a5300);--_quote:var(--elicit-quote-bg,#f2f2f5);
  --_radius:var(--elicit-radius,8px);--_focus:var(--elicit-focus,#2554c7);color:var(--_fg)}
@media (prefers-color-scheme:dark){:host{--_fg:var(--elicit-fg,#ececf1);--_bg:var(--elicit-bg,#1b1b22);
  --_muted:var(--elicit-muted,#b3b3c1);--_border:var(--elicit-border,#8c8c9e);--_accent:var(--elicit-accent,#8fb0ff);
  --_on-accent:var(--elicit-on-accent,#0f1320);--_danger:var(--elicit-danger,#ff9b9b);--_warn:var(--elicit-warn,#f1c27d);
  --_quote:var(--elicit-quote-bg,#26262f);--_focus:var(--elicit-focus,#8fb0ff)}}
:host([hidden]){display:none}
*{box-sizing:border-box}
.box{background:var(--_bg);color:var(--_fg);border:1px solid var(--_border);border-radius:var(--_radius);padding:1rem 1.25rem;overflow-wrap:anywhere}
.who{font-weight:600;margin:0}.muted{color:var(--_muted)}
.said{margin:.5rem 0 1rem;background:var(--_quote);border-left:4px solid var(--_muted);border-radius:0 calc(var(--_radius)/2) calc(var(--_radius)/2) 0;padding:.35rem .7rem}
.said-by{margin:0 0 .15rem;font-size:.85em;color:var(--_muted)}
.message{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;max-height:12.5em;overflow:auto}
label,legend{display:block;font-weight:600;margin:.75rem 0 .25rem}fieldset{border:0;padding:0;margin:0;min-width:0}
input,select{font:inherit;color:inherit;background:var(--_bg);border:1px solid var(--_border);border-radius:calc(var(--_radius)/2);padding:.4rem .5rem;width:100%;max-width:100%}
input[type=checkbox],input[type=radio]{width:auto;margin:0 .4rem 0 0;accent-color:var(--_accent)}
.choice{display:flex;align-items:center;font-weight:400;margin:.2rem 0}
.hint{color:var(--_muted);font-size:.9em;margin:.15rem 0 0}
.error{color:var(--_danger);font-size:.9em;margin:.2rem 0 0}.error:empty{display:none}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center;margin-top:1rem}.actions p{margin:0;flex-basis:100%}
button{font:inherit;padding:.45rem .9rem;border-radius:calc(var(--_radius)/2);border:1px solid var(--_border);background:var(--_bg);color:var(--_fg);cursor:pointer}
button.primary{background:var(--_accent);border-color:var(--_accent);color:var(--_on-accent)}
button.risky{border-color:var(--_danger);color:var(--_danger)}
button:disabled,input:disabled,select:disabled{cursor:default;opacity:.65}
:focus-visible{outline:2px solid var(--_focus);outline-offset:2px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere;white-space:pre-wrap}
.warn{border-left:4px solid var(--_warn);padding:.35rem .6rem;margin:.35rem 0}.warn.danger{border-color:var(--_danger);color:var(--_danger)}
.warn p{margin:0}.compare{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .75rem;margin:.35rem 0 0;color:var(--_fg)}
.compare dt{font-weight:400;color:var(--_muted)}.compare dd{font-family:ui-monospace,monospace}
.compare mark{background:var(--_danger);color:var(--_bg);padding:0 .1em;border-radius:2px}
.where{margin:.75rem 0}.where p{margin:.2rem 0}.label{font-weight:600}
.url{font-family:ui-monospace,monospace;overflow-wrap:anywhere;padding:.5rem;border:1px dashed var(--_border);border-radius:calc(var(--_radius)/2)}
.url .dim{color:var(--_muted)}.url mark{background:var(--elicit-site-bg,#ffe27a);color:#000;padding:0 .15em;border-radius:3px}
.outcome{font-weight:600;margin:.75rem 0 0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
`;

let shared: CSSStyleSheet | undefined;

/**
 * Styles a shadow root without inline CSS: a constructable stylesheet shared by every element
 * (allowed under any `style-src`, even `'none'`). Browsers without `adoptedStyleSheets` get a
 * `<style>` element instead, which needs `style-src 'unsafe-inline'` (docs/web.md).
 */
export function adoptStyles(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root && 'replaceSync' in CSSStyleSheet.prototype) {
    try {
      if (shared === undefined) {
        shared = new CSSStyleSheet();
        shared.replaceSync(BASE_CSS);
      }
      root.adoptedStyleSheets = [shared];
      return;
    } catch {
      // A sheet made in another document cannot be adopted here: fall back.
    }
  }
  root.prepend(el('style', { text: BASE_CSS }));
}

/** Creates an element with text content only (never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { class?: string; text?: string; part?: string; attrs?: Record<string, string> } = {},
  ...children: (Node | string | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class !== undefined) node.className = props.class;
  if (props.part !== undefined) node.setAttribute('part', props.part);
  if (props.text !== undefined) node.textContent = props.text;
  for (const [k, v] of Object.entries(props.attrs ?? {})) node.setAttribute(k, v);
  for (const c of children) if (c !== undefined) node.append(c);
  return node;
}
