/**
 * The four string formats of the restricted schema, checked by hand-written scanners (no
 * regex backtracking on untrusted input). Differences from ajv-formats' "full" mode are listed
 * in docs/schema.md.
 */
import type { StringFormat } from './types.ts';

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:([zZ])|([+-])(\d{2}):(\d{2}))$/;

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** RFC 3339 `full-date`. */
export function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeap(year) ? 29 : (DAYS[month] as number));
}

/** RFC 3339 `date-time` (`T` or `t`, offset required; a leap second only at 23:59 UTC). */
export function isDateTime(value: string): boolean {
  const t = value.length > 10 ? value.charCodeAt(10) : 0;
  if (t !== 84 && t !== 116) return false;
  if (!isDate(value.slice(0, 10))) return false;
  const m = TIME.exec(value.slice(11));
  if (m === null) return false;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  if (hour > 23 || minute > 59 || second > 60) return false;
  let offset = 0;
  if (m[5] !== undefined) {
    const oh = Number(m[6]);
    const om = Number(m[7]);
    if (oh > 23 || om > 59) return false;
    offset = (oh * 60 + om) * (m[5] === '+' ? 1 : -1);
  }
  if (second === 60) {
    const utc = (((hour * 60 + minute - offset) % 1440) + 1440) % 1440;
    if (utc !== 23 * 60 + 59) return false;
  }
  return true;
}

// Character classes as lookup tables: emails are checked on every answer, so no regex or split.
const ATEXT = new Uint8Array(128);
const ALNUM = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') {
  ATEXT[c.charCodeAt(0)] = 1;
  ALNUM[c.charCodeAt(0)] = 1;
}
for (const c of "!#$%&'*+/=?^_`{|}~-") ATEXT[c.charCodeAt(0)] = 1;

/**
 * RFC 5322 `addr-spec` with a dot-atom local part (at most 64 characters) and a dotted DNS
 * domain of letter/digit/hyphen labels (at most 63 each); ASCII only, at most 254 in all.
 */
export function isEmail(value: string): boolean {
  const n = value.length;
  if (n > 254) return false;
  let i = 0;
  let run = 0;
  for (; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 64) break; // @
    if (c === 46) {
      if (run === 0) return false;
      run = 0;
    } else if (c < 128 && ATEXT[c] === 1) run++;
    else return false;
  }
  if (i === n || run === 0 || i > 64) return false;
  let labels = 0;
  run = 0;
  let prev = 0;
  for (i++; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 46) {
      if (run === 0 || prev === 45) return false;
      labels++;
      run = 0;
    } else if (c < 128 && (ALNUM[c] === 1 || (c === 45 && run > 0))) {
      if (++run > 63) return false;
    } else return false;
    prev = c;
  }
  return run > 0 && prev !== 45 && labels >= 1;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// unreserved / sub-delims / ":" "@" "/" "?" — what a path, query or fragment may hold besides %HH
const PCHAR = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const USERINFO = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})*$/;
const IP_LITERAL = /^\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]$/;

/** RFC 3986 absolute URI (`scheme ":" hier-part [ "?" query ] [ "#" fragment ]`). */
export function isUri(value: string): boolean {
  const scheme = SCHEME.exec(value);
  if (scheme === null) return false;
  let rest = value.slice(scheme[0].length);
  const hash = rest.indexOf('#');
  if (hash !== -1) {
    if (!PCHAR.test(rest.slice(hash + 1))) return false;
    rest = rest.slice(0, hash);
  }
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?]/);
    const authority = end === -1 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end === -1 ? '' : rest.slice(2 + end);
    const at = authority.lastIndexOf('@');
    if (at !== -1 && !USERINFO.test(authority.slice(0, at))) return false;
    let hostPort = authority.slice(at + 1);
    const portMatch = /:(\d*)$/.exec(hostPort);
    if (portMatch !== null && !hostPort.endsWith(']'))
      hostPort = hostPort.slice(0, portMatch.index);
    if (hostPort.startsWith('[')) {
      if (!IP_LITERAL.test(hostPort)) return false;
    } else if (!REG_NAME.test(hostPort)) return false;
  }
  return PCHAR.test(rest);
}

export function checkFormat(format: StringFormat, value: string): boolean {
  switch (format) {
    case 'email':
      return isEmail(value);
    case 'uri':
      return isUri(value);
    case 'date':
      return isDate(value);
    case 'date-time':
      return isDateTime(value);
  }
}
