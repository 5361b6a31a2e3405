/**
 * URL safety analysis for URL-mode elicitation: what a careful browser would show and refuse.
 * Pure (no Node-only imports): every renderer, terminal or web, uses it.
 */
import { parse as parseDomain } from 'tldts';
import { TRANSIT_LOOPBACK_HTTP, TRANSIT_REMOTE_HTTP } from '../kernel/transit.ts';
import { looseSkeleton, readings, skeleton } from './confusables.ts';
import { findMentions, type NameIndex, nameIndex } from './mentions.ts';
import { decodeLabel } from './punycode.ts';
import { checkLabel, codePoint, type LabelProblem } from './spoof-checks.ts';
import { WELL_KNOWN_DOMAINS } from './well-known.ts';

export type Severity = 'info' | 'caution' | 'danger';

export type UrlWarningCode =
  | 'not_https'
  | 'ip_literal'
  | 'unusual_ip_notation'
  | 'userinfo'
  | 'mixed_script'
  | 'whole_script_confusable'
  | 'lookalike_domain'
  | 'lookalike_subdomain'
  | 'deviation_character'
  | 'invisible_character'
  | 'disallowed_character'
  | 'mixed_numbers'
  | 'digit_lookalike'
  | 'dangerous_pattern'
  | 'invalid_idn'
  | 'normalized'
  | 'idn'
  | 'truncated';

export interface UrlWarning {
  readonly code: UrlWarningCode;
  readonly severity: Severity;
  readonly message: string;
  /**
   * For `lookalike_domain`: the site as written (Unicode) and the well-known name it imitates,
   * so a renderer can show the two side by side with the differing characters marked.
   */
  readonly lookalike?: { readonly name: string; readonly imitates: string };
}

export type UrlRefusalCode = 'invalid' | 'scheme' | 'insecure' | 'too_long';

export interface UrlRefusal {
  readonly code: UrlRefusalCode;
  readonly message: string;
}

export type SegmentPart =
  | 'scheme'
  | 'subdomain'
  | 'domain'
  | 'port'
  | 'path'
  | 'query'
  | 'fragment'
  | 'ellipsis';

export interface Segment {
  readonly text: string;
  readonly part: SegmentPart;
}

export interface UrlAnalysis {
  /** `danger`/`caution` when warnings say so; `refused` when the URL must not be opened at all. */
  readonly verdict: 'ok' | 'caution' | 'danger' | 'refused';
  readonly refusal: UrlRefusal | undefined;
  /** What to open: the canonical URL, credentials removed. Undefined when refused. */
  readonly href: string | undefined;
  /** The host as shown: Unicode when safe to read, else punycode. */
  readonly displayHost: string | undefined;
  /** The site: registrable domain (Public Suffix List, private section on), as shown. */
  readonly site: string | undefined;
  /** The full URL as shown, in parts; `domain` is the part to highlight. */
  readonly segments: readonly Segment[];
  readonly display: string;
  readonly warnings: readonly UrlWarning[];
}

export interface AnalyzeOptions {
  /** Allow plain http to non-loopback hosts (with a warning). Default false: refused. */
  readonly allowHttp?: boolean;
  /** Extra well-known domains to protect against look-alikes. */
  readonly wellKnown?: readonly string[];
  /** Longest URL accepted, in characters. Default 8192. */
  readonly maxLength?: number;
  /** Longest display, in characters; the site is never cut. Default 160. */
  readonly maxDisplay?: number;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

function refused(code: UrlRefusalCode, message: string, warnings: UrlWarning[] = []): UrlAnalysis {
  return {
    verdict: 'refused',
    refusal: { code, message },
    href: undefined,
    displayHost: undefined,
    site: undefined,
    segments: [],
    display: '',
    warnings,
  };
}

function isLoopback(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(host) ||
    host === '[::1]'
  );
}

/** The host exactly as the input wrote it (between "//" and the path), userinfo and port removed. */
function rawHost(input: string): string | undefined {
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#\\]*)/.exec(input);
  if (m === null) return undefined;
  const authority = m[1] as string;
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
}

interface WellKnownIndex {
  readonly list: readonly string[];
  readonly strict: Map<string, string>;
  readonly loose: Map<string, string>;
  /** Names by the skeletons of their tokens, for mentions anywhere in a host. */
  readonly names: NameIndex;
  /** Each name's own site (its registrable domain). */
  readonly sites: ReadonlyMap<string, string>;
}
let wellKnownCache: WellKnownIndex | undefined;
function wellKnownIndex(extra: readonly string[] | undefined): WellKnownIndex {
  const list = extra === undefined ? WELL_KNOWN_DOMAINS : [...WELL_KNOWN_DOMAINS, ...extra];
  if (wellKnownCache?.list.length === list.length && extra === undefined) return wellKnownCache;
  const strict = new Map<string, string>();
  const loose = new Map<string, string>();
  for (const d of list) {
    strict.set(skeleton(d), d);
    loose.set(looseSkeleton(d), d);
  }
  const sites = new Map<string, string>();
  for (const d of list) {
    const name = d.toLowerCase();
    sites.set(name, parseDomain(name, { allowPrivateDomains: true }).domain ?? name);
  }
  const index = { list, strict, loose, names: nameIndex(list), sites };
  if (extra === undefined) wellKnownCache = index;
  return index;
}

// Anything that is not a visible letter, digit, punctuation or symbol (controls, bidi and format
// characters, separators, combining and variation marks, invisible fillers, private use) becomes
// a visible marker, so a message quoting raw input prints as what it is.
const NOT_PLAIN = /[^\p{L}\p{N}\p{P}\p{S} ]|[\p{Default_Ignorable_Code_Point}\p{Co}]/gu;
function visible(text: string): string {
  return text.replace(NOT_PLAIN, (c) => `⟨${codePoint(c)}⟩`);
}

/** Percent-decoding that never throws: undecodable input stays as written. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function problemWarning(label: string, p: LabelProblem): UrlWarning {
  switch (p.code) {
    case 'invalid_idn':
      return {
        code: 'invalid_idn',
        severity: 'danger',
        message: `"${label}" is not a valid international name (${p.detail}).`,
      };
    case 'deviation_character':
      return {
        code: 'deviation_character',
        severity: 'danger',
        message: `"${label}" contains a character (ß, ς or a joiner, ${p.detail}) that other systems read differently.`,
      };
    case 'disallowed_character':
      return {
        code: 'disallowed_character',
        severity: 'caution',
        message: `"${label}" contains ${p.detail}, a character not used in names, which can imitate another one.`,
      };
    case 'invisible_character':
      return {
        code: 'invisible_character',
        severity: 'danger',
        message: `"${label}" contains invisible characters (${p.detail}).`,
      };
    case 'mixed_script':
      return {
        code: 'mixed_script',
        severity: 'danger',
        message: `"${label}" mixes alphabets (${p.detail}), a common trick to imitate another name.`,
      };
    case 'mixed_numbers':
      return {
        code: 'mixed_numbers',
        severity: 'danger',
        message: `"${label}" mixes digits of different number systems.`,
      };
    case 'whole_script_confusable':
      return {
        code: 'whole_script_confusable',
        severity: 'danger',
        message: `"${label}" is written entirely in look-alike ${p.detail} letters.`,
      };
    case 'digit_lookalike':
      return {
        code: 'digit_lookalike',
        severity: 'danger',
        message: `"${label}" is made of characters that look like digits.`,
      };
    case 'dangerous_pattern':
      return {
        code: 'dangerous_pattern',
        severity: 'danger',
        message: `"${label}" contains ${p.detail}, which can imitate another name.`,
      };
  }
}

function middleEllipsis(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 1);
  return `${text.slice(0, Math.ceil(keep / 2))}…${text.slice(text.length - Math.floor(keep / 2))}`;
}

export function analyzeUrl(input: string, options: AnalyzeOptions = {}): UrlAnalysis {
  const maxLength = options.maxLength ?? 8192;
  if (typeof input !== 'string' || input.length === 0)
    return refused('invalid', 'There is no URL.');
  if (input.length > maxLength) {
    return refused(
      'too_long',
      `The URL is ${input.length} characters long; the limit is ${maxLength}. It was not opened.`,
    );
  }
  const scheme = SCHEME.exec(input.trim())?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'https' && scheme !== 'http') {
    return refused(
      'scheme',
      `"${scheme}:" links are never opened from an elicitation; only https (and http to this computer) are.`,
    );
  }
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return refused(
      'invalid',
      'This is not a valid web address (it may hide invisible or reversed characters).',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return refused('scheme', `"${url.protocol}" links are never opened from an elicitation.`);
  }
  const host = url.hostname;
  if (host.length > 253 || host.split('.').some((l) => l.length > 63)) {
    return refused('too_long', 'The host name is longer than DNS allows; it was not opened.');
  }
  const warnings: UrlWarning[] = [];
  const warn = (code: UrlWarningCode, severity: Severity, message: string) =>
    warnings.push({ code, severity, message });
  const loopback = isLoopback(host.endsWith('.') ? host.slice(0, -1) : host);
  if (url.protocol === 'http:' && !loopback) {
    if (options.allowHttp !== true) {
      return refused(
        'insecure',
        `This page would open over plain http to ${host}; anyone on the network could read or change it. It was not opened.`,
      );
    }
    warn('not_https', 'caution', TRANSIT_REMOTE_HTTP);
  } else if (url.protocol === 'http:') {
    warn('not_https', 'info', TRANSIT_LOOPBACK_HTTP);
  }
  if (url.username !== '' || url.password !== '') {
    warn(
      'userinfo',
      'danger',
      `The address hides text before "@" ("${visible(middleEllipsis(percentDecoded(url.username), 40))}"); the site is really ${host}.`,
    );
  }
  // What opens is the canonical URL without credentials (copied only when there are some:
  // the setters reparse).
  let href = url.href;
  if (url.username !== '' || url.password !== '') {
    const open = new URL(href);
    open.username = '';
    open.password = '';
    href = open.href;
  }

  const written = rawHost(input.trim());
  const isIp = IPV4.test(host) || host.startsWith('[');
  let displayHost = host;
  let site = host;
  let subdomain = '';
  if (isIp) {
    if (!loopback)
      warn(
        'ip_literal',
        'caution',
        `The address is a bare IP (${host}), not a name: you cannot tell whose server it is.`,
      );
    if (written !== undefined && written.toLowerCase() !== host) {
      warn(
        'unusual_ip_notation',
        'danger',
        `The address writes an IP in an unusual way ("${visible(middleEllipsis(written, 40))}"); it is really ${host}.`,
      );
    }
  } else {
    // A fully qualified name ("example.com.") is the same site: one trailing dot is set aside so
    // the registrable domain is computed on the name itself.
    const name = host.endsWith('.') ? host.slice(0, -1) : host;
    const labels = name.split('.');
    if (labels.some((l) => l === '')) {
      return refused('invalid', `The host name "${host}" has an empty part; it was not opened.`);
    }
    const unicode = labels.map((l) => (l.startsWith('xn--') ? decodeLabel(l) : l));
    const tld = labels[labels.length - 1] as string;
    const tldUnicode = unicode[unicode.length - 1] ?? tld;
    let unsafe = false;
    labels.forEach((label, i) => {
      if (!label.startsWith('xn--')) return;
      const problem = checkLabel(unicode[i], tld, tldUnicode);
      if (problem === undefined) return;
      unsafe = true;
      warnings.push(problemWarning(label, problem));
    });
    const readable = unicode.map((u, i) => u ?? (labels[i] as string));
    const parsed = parseDomain(name, {
      allowPrivateDomains: true,
      extractHostname: false,
      validateHostname: false,
    });
    const domain = parsed.domain ?? name;
    const domainLabels = domain.split('.').length;
    const unicodeDomain = readable.slice(readable.length - domainLabels).join('.');
    const index = wellKnownIndex(options.wellKnown);
    let look: string | undefined;
    for (const r of readings(unicodeDomain)) {
      look = index.strict.get(skeleton(r)) ?? index.loose.get(looseSkeleton(r));
      if (look !== undefined) break;
    }
    if (look !== undefined && look !== domain && look !== unicodeDomain) {
      unsafe = true;
      warnings.push({
        code: 'lookalike_domain',
        severity: 'danger',
        message: `${visible(unicodeDomain)} looks like ${look} but is a different site.`,
        lookalike: { name: unicodeDomain, imitates: look },
      });
    }
    // A well-known name written anywhere in the host outside its own site.
    const readableHost = readable.join('.');
    // A host is a name's own when its site is the name's site: a tenant under a private suffix
    // (`bucket.s3.amazonaws.com`) is not the owner of the suffix's name.
    const own = (d: string): boolean =>
      d === name || d === readableHost || [domain, unicodeDomain].includes(index.sites.get(d) ?? d);
    const mentions = findMentions(
      { labels: readable, site: readable.length - domainLabels, icann: parsed.isIcann === true },
      index.names,
      own,
    ).slice(0, 3);
    for (const m of mentions) {
      if (m.place !== 'domain' || warnings.some((w) => w.code === 'lookalike_domain')) continue;
      unsafe = true;
      warn(
        'lookalike_domain',
        'danger',
        `${visible(unicodeDomain)} looks like ${m.name} but is a different site.`,
      );
    }
    const shown = unsafe ? labels : readable;
    displayHost = shown.join('.');
    site = shown.slice(shown.length - domainLabels).join('.');
    subdomain = shown.slice(0, shown.length - domainLabels).join('.');
    for (const m of mentions) {
      if (m.place === 'domain') continue;
      const exact = m.text === m.name;
      warn(
        'lookalike_subdomain',
        exact && m.place === 'subdomain' ? 'caution' : 'danger',
        exact
          ? `The address mentions ${m.name}, but the site is ${site}.`
          : `The address writes ${visible(m.text)} to look like ${m.name}, but the site is ${site}.`,
      );
    }
    if (!unsafe && displayHost !== name) {
      warn('idn', 'info', `This name uses international characters: ${displayHost} (${name}).`);
    }
    if (unsafe && warnings.every((w) => w.code !== 'lookalike_domain')) {
      // Shown as punycode: say so plainly.
      warnings.push({
        code: 'idn',
        severity: 'caution',
        message: `Shown as ${name} because its characters could imitate another name.`,
      });
    }
    if (
      written !== undefined &&
      !unsafe &&
      written.normalize('NFC').toLowerCase() !== displayHost &&
      written.normalize('NFC').toLowerCase() !== `${displayHost}.` &&
      written.toLowerCase() !== host
    ) {
      warn(
        'normalized',
        'caution',
        `The address was written as "${visible(middleEllipsis(written, 40))}"; it opens ${displayHost}.`,
      );
    }
  }

  // Segments, with the site never cut.
  const maxDisplay = options.maxDisplay ?? 160;
  const segments: Segment[] = [{ text: `${url.protocol}//`, part: 'scheme' }];
  const budgetForSub = Math.max(10, maxDisplay - site.length - 20);
  if (subdomain !== '') {
    if (subdomain.length + 1 > budgetForSub) {
      segments.push(
        { text: '…', part: 'ellipsis' },
        { text: `${subdomain.slice(subdomain.length + 1 - budgetForSub)}.`, part: 'subdomain' },
      );
    } else segments.push({ text: `${subdomain}.`, part: 'subdomain' });
  }
  segments.push({ text: site, part: 'domain' });
  if (url.port !== '') segments.push({ text: `:${url.port}`, part: 'port' });
  const used = segments.reduce((n, s) => n + s.text.length, 0);
  const rest = Math.max(12, maxDisplay - used);
  const tail = `${url.pathname}${url.search}${url.hash}`;
  if (tail.length > rest) {
    warn(
      'truncated',
      'info',
      'The end of the address is shortened here; the full address is what opens.',
    );
    segments.push({ text: middleEllipsis(tail, rest), part: 'path' });
  } else {
    if (url.pathname !== '/' || url.search !== '' || url.hash !== '')
      segments.push({ text: url.pathname, part: 'path' });
    if (url.search !== '') segments.push({ text: url.search, part: 'query' });
    if (url.hash !== '') segments.push({ text: url.hash, part: 'fragment' });
  }
  const verdict = warnings.some((w) => w.severity === 'danger')
    ? 'danger'
    : warnings.some((w) => w.severity === 'caution')
      ? 'caution'
      : 'ok';
  return {
    verdict,
    refusal: undefined,
    href,
    displayHost,
    site,
    segments,
    display: segments.map((s) => s.text).join(''),
    warnings,
  };
}
