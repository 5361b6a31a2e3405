/**
 * Closing a @clack prompt from outside. Clack's own `signal` option stops a prompt without
 * drawing it again, so its last frame stays on screen looking live (a menu or a waiting screen
 * that seems to still take keys). Instead, the abort reaches the prompt as the Esc key: it draws
 * its closed state and ends as a cancel, as if the person had pressed Esc.
 */
import type { Readable } from 'node:stream';

/**
 * Runs one prompt reading `input`; when `signal` aborts while it is open, the prompt gets an
 * Esc. `prompt` receives a signal for clack that is set only when `signal` was already aborted
 * (the prompt then ends at once, drawing nothing).
 */
export async function closable<T>(
  input: Readable,
  signal: AbortSignal | undefined,
  prompt: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (signal === undefined || signal.aborted) return prompt(signal);
  const esc = () => input.emit('keypress', '\u001b', { name: 'escape', sequence: '\u001b' });
  signal.addEventListener('abort', esc, { once: true });
  try {
    return await prompt(undefined);
  } finally {
    signal.removeEventListener('abort', esc);
  }
}
