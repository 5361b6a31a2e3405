/** The host page's HTML (no inline script: the CSP allows only our own module). */
export const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>elicit demo (web)</title><link rel="stylesheet" href="/host.css"></head>
<body><main><h1>elicit demo</h1><p class="muted">An MCP host in this page: the SDK client, with elicitations rendered by &lt;elicit-form&gt; and &lt;elicit-url-consent&gt;.</p>
<p><label for="era">Protocol</label> <select id="era"><option value="auto">auto</option><option value="legacy">2025-11-25</option><option value="modern">2026-07-28</option></select>
<button id="connect" type="button">Connect</button></p>
<h2 id="tools-title" hidden>Tools</h2><div id="tools" class="tools" aria-labelledby="tools-title"></div>
<h2 id="prompt-list-title" hidden>Prompts</h2><div id="prompt-list" class="tools" aria-labelledby="prompt-list-title"></div>
<div id="calls" aria-live="polite"></div><div id="prompts"></div><section id="log" aria-live="polite"></section></main>
<script type="module" src="/host.js"></script></body></html>`;

export const HOST_CSS = `body{font:15px/1.45 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
.muted{color:#667}.tools{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0}.tools button,#connect{font:inherit;padding:.4rem .8rem}
#prompts>*{margin:1rem 0}#log .entry{margin:.25rem 0;white-space:pre-wrap}#log .error{color:#a4000f}#log .result{color:#1b5e20}
h2{font-size:1rem;margin:1rem 0 .25rem}.call{display:flex;align-items:center;gap:.6rem;margin:.5rem 0}.call progress{flex:1;min-width:8rem}
.call .label{font-weight:600}.call .detail{color:#667;min-width:4rem}.call button{font:inherit;padding:.2rem .7rem}#log .muted{color:#667}
@media (prefers-color-scheme:dark){body{background:#15151a;color:#eee}.muted{color:#aab}}`;

export const HOST_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
