import type { Limits } from './limits.ts';

export type MeasureFailure = { readonly kind: 'too_large' | 'too_deep'; readonly size: number };

/**
 * Walks any JSON-like value without recursion (level by level) and stops as soon as it is larger than
 * `limits.maxSize` characters of JSON text (estimated, never under-counted for ASCII) or deeper
 * than `limits.maxDepth`. Everything else in the schema core runs after this, so a hostile value
 * can never make later steps slow or blow the stack.
 */
export function measureJson(
  value: unknown,
  limits: Pick<Limits, 'maxSize' | 'maxDepth'>,
): MeasureFailure | undefined {
  const { maxSize, maxDepth } = limits;
  // Level by level: the objects of one depth, then their child objects. Strings and other
  // values are counted where they are found, so only objects are ever queued.
  let size = sizeOfLeaf(value);
  if (size > maxSize) return { kind: 'too_large', size };
  let level: object[] = size === 0 ? [value as object] : [];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth >= maxDepth) return { kind: 'too_deep', size };
    const next: object[] = [];
    for (const node of level) {
      size += 2;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          const child: unknown = node[i];
          const leaf = sizeOfLeaf(child);
          size += 1 + leaf;
          if (leaf === 0) next.push(child as object);
          if (size > maxSize) return { kind: 'too_large', size };
        }
      } else {
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue;
          const child: unknown = (node as Record<string, unknown>)[key];
          const leaf = sizeOfLeaf(child);
          size += key.length + 4 + leaf;
          if (leaf === 0) next.push(child as object);
          if (size > maxSize) return { kind: 'too_large', size };
        }
      }
      if (size > maxSize) return { kind: 'too_large', size };
    }
    level = next;
  }
  return undefined;
}

/** What a value that is not an object adds (0 for an object, counted by its members). */
function sizeOfLeaf(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object') return 8;
  return 0;
}
