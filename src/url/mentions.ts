/**
 * Well-known names written into a host outside their own site: `paypal.com.evil.com`,
 * `paypal.com.s3.amazonaws.com` (site `com.s3.amazonaws.com`), `accounts-google-com.evil.com`,
 * `www.paypa1.com.evil.com`, `paypal-com.net`.
 *
 * A host is cut into tokens at every dot, hyphen or other character that is not a letter, mark
 * or digit (browsers accept `_`, `,`, `~`, `$`, `+`, `=` … in names); a well-known name is the
 * sequence of its own tokens (`paypal.com` is `paypal`, `com`). A mention is a run of host tokens whose TR39
 * skeletons (strict or without diacritics, each two-reading letter both ways) equal the name's,
 * whatever separators join them: so digits for letters (`paypa1`, `g00gle`), homographs and
 * hyphens for dots are all caught, while a name must still appear as whole tokens, which keeps
 * ordinary words (`travel-visa.com`, `start-ups.com`, `mypaypal.com`) out.
 *
 * Cost: a host is at most 253 characters, so at most 127 tokens. Each token is skeletonised
 * once per reading (at most 2^5 readings, see `readings`), and each key is looked up in a map
 * from a name's first-token skeleton to the names starting with it; a candidate is confirmed
 * token by token. The work is O(host length × 64 keys) character operations plus
 * O(tokens × keys × names sharing a first token × tokens per name) lookups, whatever the list.
 */
import { looseSkeleton, readings, skeleton } from './confusables.ts';

interface KnownName {
  readonly name: string;
  /** Skeleton keys of each token of the name (strict and loose). */
  readonly keys: readonly (readonly string[])[];
}

/** The well-known names, indexed by the skeleton keys of their first token. */
export interface NameIndex {
  readonly byFirst: ReadonlyMap<string, readonly KnownName[]>;
}

const keysOf = (token: string): string[] => {
  const out = new Set<string>();
  for (const r of readings(token)) {
    out.add(skeleton(r));
    out.add(looseSkeleton(r));
  }
  return [...out];
};

// Letters, marks and digits; anything else a host may hold (".", "-", "_", and the "," "(" "~"
// "$" "+" "=" … a browser accepts in a name) joins tokens.
const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;
const JOINER = /[^\p{L}\p{M}\p{N}.]/u;

export function nameIndex(list: readonly string[]): NameIndex {
  const byFirst = new Map<string, KnownName[]>();
  for (const raw of list) {
    const name = raw.toLowerCase();
    const tokens = name.match(TOKEN) ?? [];
    if (tokens.length === 0) continue;
    const known: KnownName = { name, keys: tokens.map(keysOf) };
    for (const k of known.keys[0] as readonly string[]) {
      const at = byFirst.get(k);
      if (at === undefined) byFirst.set(k, [known]);
      else if (!at.includes(known)) at.push(known);
    }
  }
  return { byFirst };
}

/** Where a mention sits relative to the host's site. */
export type MentionPlace =
  /** Wholly in the subdomain: `paypal.com.evil.com`. */
  | 'subdomain'
  /** From the subdomain into the site: `paypal.com.zip` (site `com.zip`). */
  | 'crossing'
  /** Inside the registered name itself: `paypal-com.net`, `gov.uk.com` (private suffix). */
  | 'domain';

export interface Mention {
  /** The well-known name imitated. */
  readonly name: string;
  /** The host text that imitates it, as written (Unicode labels decoded). */
  readonly text: string;
  readonly place: MentionPlace;
}

interface Token {
  readonly text: string;
  readonly label: number;
  readonly start: number;
  readonly end: number;
  /** The first token of its label. */
  readonly first: boolean;
}

export interface HostParts {
  /** The host's labels, Unicode where decoded, without a trailing dot. */
  readonly labels: readonly string[];
  /** Index of the registrable label (the site is `labels.slice(site)`). */
  readonly site: number;
  /** Whether the public suffix is a registry's (ICANN section) rather than a private one. */
  readonly icann: boolean;
}

/**
 * Mentions of well-known names in `host` outside their own site, in host order, the longest
 * first where two start together and none inside another. `own(name)` says whether the host
 * belongs to that name's site (then its mentions are the site's own).
 */
export function findMentions(
  host: HostParts,
  index: NameIndex,
  own: (name: string) => boolean,
): Mention[] {
  const { labels, site } = host;
  const text = labels.join('.');
  const tokens: Token[] = [];
  let offset = 0;
  labels.forEach((label, i) => {
    let first = true;
    for (const m of label.matchAll(TOKEN)) {
      const start = offset + m.index;
      tokens.push({ text: m[0], label: i, start, end: start + m[0].length, first });
      first = false;
    }
    offset += label.length + 1;
  });
  const keys = tokens.map((t) => new Set(keysOf(t.text)));
  const found: { mention: Mention; from: number; to: number }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const seen = new Set<KnownName>();
    for (const k of keys[i] as Set<string>) {
      for (const known of index.byFirst.get(k) ?? []) {
        if (seen.has(known)) continue;
        seen.add(known);
        const last = i + known.keys.length - 1;
        if (last >= tokens.length) continue;
        let matches = true;
        for (let j = 1; j < known.keys.length && matches; j++) {
          const have = keys[i + j] as Set<string>;
          matches = (known.keys[j] as readonly string[]).some((key) => have.has(key));
        }
        if (!matches || own(known.name)) continue;
        const a = tokens[i] as Token;
        const b = tokens[last] as Token;
        const written = text.slice(a.start, b.end);
        const place = placeOf(host, a, b, written);
        if (place === undefined) continue;
        found.push({
          mention: { name: known.name, text: written, place },
          from: a.start,
          to: b.end,
        });
      }
    }
  }
  found.sort((x, y) => x.from - y.from || y.to - x.to);
  const out: Mention[] = [];
  let reach = -1;
  for (const f of found) {
    if (f.to <= reach) continue;
    out.push(f.mention);
    reach = f.to;
  }
  return out;

  function placeOf(h: HostParts, a: Token, b: Token, written: string): MentionPlace | undefined {
    if (a.label < site) return b.label < site ? 'subdomain' : 'crossing';
    // In the public suffix: the registry's name, not the site owner's.
    if (a.label > site) return undefined;
    // Inside the registered label: `paypal-com.net`.
    if (b.label === site) return 'domain';
    // From the registered label into the suffix. A name that starts mid-label
    // (`secure-paypal.com`, `travel-visa.com`) cannot be told from ordinary words.
    if (!a.first) return undefined;
    if (JOINER.test(written)) return 'domain';
    // The whole site is compared with the well-known names as a look-alike already.
    if (b.label === h.labels.length - 1) return undefined;
    // `google.com.au`: the brand under a registry's country suffix. Under a private suffix
    // anyone can register (`gov.uk.com`, `paypal.com.de`), the name is borrowed.
    return h.icann ? undefined : 'domain';
  }
}
