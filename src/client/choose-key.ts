/**
 * A one-key choice (@clack/prompts' `selectKey`) where Enter means what the screen shows.
 * `selectKey` highlights its first option and, on Enter, shows that option as chosen, yet
 * resolves with no value; a caller reading "no value" as its last branch then does something
 * else than what the person saw (Enter on "Call" opened "Which field?"). Here Enter is the
 * highlighted option.
 */
import * as p from '@clack/prompts';

type SelectKeyOptions<T extends string> = Parameters<typeof p.selectKey<T>>[0];

/** `p.selectKey`, with Enter choosing the option it shows as chosen (the first enabled one). */
export async function chooseKey<T extends string>(
  options: SelectKeyOptions<T>,
): Promise<T | symbol> {
  const choice = await p.selectKey(options);
  if (choice !== undefined) return choice;
  const shown = options.options.find((o) => o.disabled !== true) ?? options.options[0];
  return shown?.value as T;
}
