/** Shared element styles: themable with CSS custom properties and ::part, light and dark. */
export const BASE_CSS = `
:host{display:block;font:var(--elicit-font,15px/1.45 system-ui,sans-serif);color:var(--elicit-fg,#1b1b1f);
  --_bg:var(--elicit-bg,#fff);--_muted:var(--elicit-muted,#5b5b66);--_border:var(--elicit-border,#c9c9d3);
  --_accent:var(--elicit-accent,#2554c7);--_danger:var(--elicit-danger,#a4000f);--_warn:var(--elicit-warn,#8a5300);
  --_radius:var(--elicit-radius,8px);--_focus:var(--elicit-focus,0 0 0 3px rgba(37,84,199,.45))}
@media (prefers-color-scheme:dark){:host{color:var(--elicit-fg,#eee);--_bg:var(--elicit-bg,#1b1b22);--_muted:var(--elicit-muted,#aab);
  --_border:var(--elicit-border,#445);--_accent:var(--elicit-accent,#8fb0ff);--_danger:var(--elicit-danger,#ff8a8a);--_warn:var(--elicit-warn,#f1c27d)}}
.box{background:var(--_bg);border:1px solid var(--_border);border-radius:var(--_radius);padding:1rem 1.25rem}
.who{font-weight:600}.muted{color:var(--_muted)}.message{white-space:pre-wrap;overflow-wrap:anywhere;margin:.5rem 0 1rem}
label,legend{display:block;font-weight:600;margin:.75rem 0 .25rem}fieldset{border:0;padding:0;margin:0}
input,select{font:inherit;color:inherit;background:transparent;border:1px solid var(--_border);border-radius:calc(var(--_radius)/2);padding:.4rem .5rem;box-sizing:border-box;width:100%}
input[type=checkbox],input[type=radio]{width:auto;margin-right:.4rem}
.choice{display:flex;align-items:center;font-weight:400;margin:.2rem 0}
.hint{color:var(--_muted);font-size:.9em;margin:.15rem 0 0}
.error{color:var(--_danger);font-size:.9em;margin:.2rem 0 0}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:1rem}
button{font:inherit;padding:.45rem .9rem;border-radius:calc(var(--_radius)/2);border:1px solid var(--_border);background:transparent;color:inherit;cursor:pointer}
button.primary{background:var(--_accent);border-color:var(--_accent);color:#fff}
:focus-visible{outline:none;box-shadow:var(--_focus)}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
.warn{border-left:4px solid var(--_warn);padding:.35rem .6rem;margin:.35rem 0}.warn.danger{border-color:var(--_danger);color:var(--_danger)}
.url{font-family:ui-monospace,monospace;overflow-wrap:anywhere;padding:.5rem;border:1px dashed var(--_border);border-radius:calc(var(--_radius)/2)}
.url .dim{color:var(--_muted)}mark{background:var(--elicit-site-bg,#ffe27a);color:#000;padding:0 .15em;border-radius:3px}
`;

/** Creates an element with text content only (never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { class?: string; text?: string; part?: string; attrs?: Record<string, string> } = {},
  ...children: (Node | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class !== undefined) node.className = props.class;
  if (props.part !== undefined) node.setAttribute('part', props.part);
  if (props.text !== undefined) node.textContent = props.text;
  for (const [k, v] of Object.entries(props.attrs ?? {})) node.setAttribute(k, v);
  for (const c of children) if (c !== undefined) node.append(c);
  return node;
}
