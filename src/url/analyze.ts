/**
 * URL safety analysis for URL-mode elicitation: what a careful browser would show and refuse.
 * Pure (no Node-only imports): every renderer, terminal or web, uses it.
 */
import { parse as parseDomain } from 'tldts';
import { allConfusableWithAscii, looseSkeleton, skeleton } from './confusables.ts';
import { decodeLabel } from './punycode.ts';
import { isHighlyRestrictive, scriptsOf } from './scripts.ts';
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
  | 'normalized'
  | 'idn'
  | 'truncated';

export interface UrlWarning {
  readonly code: UrlWarningCode;
  readonly severity: Severity;
  readonly message: string;
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
const DEVIATIONS = /[\u00df\u03c2\u200c\u200d]/u;
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zs}]/u;
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

let wellKnownCache:
  | { list: readonly string[]; strict: Map<string, string>; loose: Map<string, string> }
  | undefined;
function wellKnownIndex(extra: readonly string[] | undefined) {
  const list = extra === undefined ? WELL_KNOWN_DOMAINS : [...WELL_KNOWN_DOMAINS, ...extra];
  if (wellKnownCache?.list.length === list.length && extra === undefined) return wellKnownCache;
  const strict = new Map<string, string>();
  const loose = new Map<string, string>();
  for (const d of list) {
    strict.set(skeleton(d), d);
    loose.set(looseSkeleton(d), d);
  }
  const index = { list, strict, loose };
  if (extra === undefined) wellKnownCache = index;
  return index;
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
  const loopback = isLoopback(host);
  if (url.protocol === 'http:' && !loopback) {
    if (options.allowHttp !== true) {
      return refused(
        'insecure',
        `This page would open over plain http to ${host}; anyone on the network could read or change it. It was not opened.`,
      );
    }
    warn(
      'not_https',
      'caution',
      'This page is not encrypted (http): anyone on the network could read or change what you enter.',
    );
  } else if (url.protocol === 'http:') {
    warn('not_https', 'info', 'This page is on this computer and is not encrypted (http).');
  }
  if (url.username !== '' || url.password !== '') {
    warn(
      'userinfo',
      'danger',
      `The address hides text before "@" ("${middleEllipsis(decodeURIComponent(url.username), 40)}"); the site is really ${host}.`,
    );
  }
  const open = new URL(url.href);
  open.username = '';
  open.password = '';

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
        `The address writes an IP in an unusual way ("${middleEllipsis(written, 40)}"); it is really ${host}.`,
      );
    }
  } else {
    const labels = host.split('.');
    const unicode = labels.map((l) => decodeLabel(l) ?? l);
    let unsafe = false;
    unicode.forEach((label, i) => {
      if (label === labels[i]) return;
      if (DEVIATIONS.test(label)) {
        unsafe = true;
        warn(
          'deviation_character',
          'danger',
          `"${labels[i]}" contains a character (ß, ς or a joiner) that other systems read differently.`,
        );
      }
      if (INVISIBLE.test(label)) {
        unsafe = true;
        warn('invisible_character', 'danger', `"${labels[i]}" contains invisible characters.`);
      }
      const scripts = scriptsOf(label);
      if (!isHighlyRestrictive(scripts)) {
        unsafe = true;
        warn(
          'mixed_script',
          'danger',
          `"${labels[i]}" mixes alphabets (${[...scripts].join(' + ')}), a common trick to imitate another name.`,
        );
      } else if (scripts.size === 1 && !scripts.has('Latin') && allConfusableWithAscii(label)) {
        unsafe = true;
        warn(
          'whole_script_confusable',
          'danger',
          `"${labels[i]}" is written entirely in look-alike ${[...scripts][0]} letters.`,
        );
      }
    });
    const parsed = parseDomain(host, { allowPrivateDomains: true });
    const domain = parsed.domain ?? host;
    const unicodeDomain = domain
      .split('.')
      .map((l) => decodeLabel(l) ?? l)
      .join('.');
    const index = wellKnownIndex(options.wellKnown);
    const look =
      index.strict.get(skeleton(unicodeDomain)) ?? index.loose.get(looseSkeleton(unicodeDomain));
    if (look !== undefined && look !== domain && look !== unicodeDomain) {
      unsafe = true;
      warn(
        'lookalike_domain',
        'danger',
        `${unicodeDomain} looks like ${look} but is a different site.`,
      );
    }
    const sub = parsed.subdomain ?? '';
    if (sub !== '') {
      const mentioned = index.list.find(
        (d) => d !== domain && (sub === d || sub.endsWith(`.${d}`) || sub.includes(`${d}.`)),
      );
      if (mentioned !== undefined) {
        warn(
          'lookalike_subdomain',
          'caution',
          `The address mentions ${mentioned}, but the site is ${domain}.`,
        );
      }
    }
    const shown = unsafe ? labels : unicode;
    displayHost = shown.join('.');
    const domainLabels = domain.split('.').length;
    site = shown.slice(shown.length - domainLabels).join('.');
    subdomain = shown.slice(0, shown.length - domainLabels).join('.');
    if (!unsafe && displayHost !== host) {
      warn('idn', 'info', `This name uses international characters: ${displayHost} (${host}).`);
    }
    if (unsafe && warnings.every((w) => w.code !== 'lookalike_domain')) {
      // Shown as punycode: say so plainly.
      warnings.push({
        code: 'idn',
        severity: 'caution',
        message: `Shown as ${host} because its characters could imitate another name.`,
      });
    }
    if (
      written !== undefined &&
      !unsafe &&
      written.normalize('NFC').toLowerCase() !== displayHost &&
      written.toLowerCase() !== host
    ) {
      warn(
        'normalized',
        'caution',
        `The address was written as "${middleEllipsis(written, 40)}"; it opens ${displayHost}.`,
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
    href: open.href,
    displayHost,
    site,
    segments,
    display: segments.map((s) => s.text).join(''),
    warnings,
  };
}
