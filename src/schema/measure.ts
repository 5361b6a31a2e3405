import type { Limits } from './limits.ts';

export type MeasureFailure = { readonly kind: 'too_large' | 'too_deep'; readonly size: number };

/**
 * Walks any JSON-like value without recursion and stops as soon as it is larger than
 * `limits.maxSize` characters of JSON text (estimated, never under-counted for ASCII) or deeper
 * than `limits.maxDepth`. Everything else in the schema core runs after this, so a hostile value
 * can never make later steps slow or blow the stack.
 */
export function measureJson(
  value: unknown,
  limits: Pick<Limits, 'maxSize' | 'maxDepth'>,
): MeasureFailure | undefined {
  const stack: unknown[] = [value];
  const depths: number[] = [0];
  let size = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    const depth = depths.pop() as number;
    if (typeof node === 'string') size += node.length + 2;
    else if (node === null || typeof node !== 'object') size += 8;
    else {
      if (depth >= limits.maxDepth) return { kind: 'too_deep', size };
      size += 2;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          stack.push(node[i]);
          depths.push(depth + 1);
          size += 1;
          if (size > limits.maxSize) return { kind: 'too_large', size };
        }
      } else {
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue;
          size += key.length + 4;
          stack.push((node as Record<string, unknown>)[key]);
          depths.push(depth + 1);
          if (size > limits.maxSize) return { kind: 'too_large', size };
        }
      }
    }
    if (size > limits.maxSize) return { kind: 'too_large', size };
  }
  return undefined;
}
