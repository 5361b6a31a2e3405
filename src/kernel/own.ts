/**
 * Own-property helpers for objects keyed by untrusted names: a plain assignment of `__proto__`
 * would change the prototype, and a plain read would find inherited members.
 */

/** Writes `key` as an own, enumerable data property, whatever its name (`__proto__` too). */
export function setOwn(target: object, key: string, value: unknown): void {
  // Assignment is the fast path; only `__proto__` is an accessor on a plain object.
  if (key === '__proto__')
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else (target as Record<string, unknown>)[key] = value;
}

/** The own property `key` of `obj`, or undefined when it is absent or only inherited. */
export function getOwn<T = unknown>(obj: object, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? ((obj as Record<string, unknown>)[key] as T) : undefined;
}

/** True when `obj` has `key` as its own property with a value other than undefined. */
export function hasOwnValue(obj: object, key: string): boolean {
  // Most keys asked about are absent: the plain read answers those without the own-check.
  return (obj as Record<string, unknown>)[key] !== undefined && Object.hasOwn(obj, key);
}
