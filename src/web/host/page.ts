/** The host page's HTML (no inline script: the CSP allows only our own module). */
export const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark"><title>elicit demo (web)</title><link rel="stylesheet" href="/host.css"></head>
<body><main><h1>elicit demo</h1><p class="muted">An MCP host in this page: the SDK client, with elicitations rendered by &lt;elicit-form&gt; and &lt;elicit-url-consent&gt;.</p>
<p class="connect"><label for="era">Protocol</label> <select id="era"><option value="auto">auto</option><option value="legacy">2025-11-25</option><option value="modern">2026-07-28</option></select>
<button id="connect" class="primary" type="button">Connect</button></p>
<section id="tools-section" aria-labelledby="tools-title" hidden><h2 id="tools-title">Tools</h2><div id="tools" class="tools"></div></section>
<section id="prompt-section" aria-labelledby="prompt-list-title" hidden><h2 id="prompt-list-title">Prompts</h2><div id="prompt-list" class="tools"></div></section>
<p id="status" class="muted" role="status"></p>
<div id="calls"></div><div id="prompts"></div>
<section id="log-section" aria-labelledby="log-title" hidden><h2 id="log-title">Log</h2><div id="log" role="log"></div></section></main>
<script type="module" src="/host.js"></script></body></html>`;

/*
 * Colours are checked by the browser suite (axe, WCAG 2.2 AA): text ≥ 4.5:1 and the focus ring
 * ≥ 3:1 against the page, in both schemes. `color-scheme` lets native controls follow dark mode.
 */
export const HOST_CSS = `:root{color-scheme:light dark;--fg:#1b1b1f;--bg:#fff;--muted:#55555f;--line:#76768a;--accent:#0b57d0;--on-accent:#fff;--danger:#a4000f;--ok:#1b5e20;--focus:#0b57d0;--raise:#f3f3f6}
@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--bg:#15151a;--muted:#b4b4c2;--line:#8a8a9e;--accent:#8ab4f8;--on-accent:#10131a;--danger:#ff9a90;--ok:#8fd19e;--focus:#8ab4f8;--raise:#22222a}}
body{font:15px/1.45 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:var(--fg);background:var(--bg)}
h1{font-size:1.5rem}h2{font-size:1rem;margin:1rem 0 .25rem}.muted{color:var(--muted)}
button,select{font:inherit;color:var(--fg);background:var(--raise);border:1px solid var(--line);border-radius:.4rem;padding:.4rem .8rem;cursor:pointer}
button.primary{background:var(--accent);color:var(--on-accent);border-color:var(--accent);font-weight:600}
button[aria-disabled=true]{opacity:.75;cursor:not-allowed}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.connect{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
.tools{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0 1rem}
#prompts>*{margin:1rem 0}
.call{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem .6rem;margin:.5rem 0;padding:.4rem .6rem;border:1px solid var(--line);border-radius:.4rem}
.call .label{font-weight:600;overflow-wrap:anywhere}.call progress{flex:1 1 5rem;min-width:4rem;accent-color:var(--accent)}
.call .detail{color:var(--muted);flex:1 1 100%;min-width:0;overflow-wrap:anywhere;order:4}.call button{padding:.2rem .7rem}
#log .entry{margin:.25rem 0;white-space:pre-wrap;overflow-wrap:anywhere}#log .error{color:var(--danger)}#log .result{color:var(--ok)}#log .muted{color:var(--muted)}
#log .entry:focus{outline:none}#log .entry:focus-visible{outline:3px solid var(--focus)}`;

export const HOST_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
