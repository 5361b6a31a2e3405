/** Prints rows as an aligned plain-text table (shared by the bench and conformance runners). */
export function printTable<C extends string>(
  cols: readonly C[],
  rows: readonly Record<C, string>[],
): void {
  const width = Object.fromEntries(
    cols.map((c) => [c, Math.max(c.length, ...rows.map((r) => r[c].length))]),
  ) as Record<C, number>;
  const line = (r: Record<C, string>) => cols.map((c) => r[c].padEnd(width[c])).join(' | ');
  console.log(line(Object.fromEntries(cols.map((c) => [c, c])) as unknown as Record<C, string>));
  console.log(cols.map((c) => '-'.repeat(width[c])).join('-|-'));
  for (const r of rows) console.log(line(r));
}
