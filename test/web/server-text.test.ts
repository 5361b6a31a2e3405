/** How much server text the elements show: blank-line runs collapsed, lines and characters capped. */
import { describe, expect, it } from 'vitest';
import { MESSAGE_LIMITS } from '../../src/web/limits.ts';
import { boundedText } from '../../src/web/server-text.ts';

describe('boundedText', () => {
  it('collapses runs of blank lines to one and trims blank lines at either end', () => {
    expect(boundedText('\n\n  \nfirst\n\n\n\n \t\nsecond\n\n\n')).toBe('first\n\nsecond');
  });

  it('keeps at most MESSAGE_LIMITS.lines lines and says how many more there were', () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
    const shown = boundedText(text).split('\n');
    expect(shown).toHaveLength(MESSAGE_LIMITS.lines + 1);
    expect(shown.at(-1)).toBe(`… (${40 - MESSAGE_LIMITS.lines} more lines hidden)`);
  });

  it('newlines cannot spend the character cap: text after 2 000 blank lines is still read', () => {
    expect(boundedText(`Sign in.${'\n'.repeat(2000)}Address: https://google.com`)).toBe(
      'Sign in.\n\nAddress: https://google.com',
    );
  });

  it('caps characters and stays inert', () => {
    const shown = boundedText(`${'x'.repeat(5000)}\u202e`);
    expect(shown).toMatch(/^x{2000}… \(\d+ more characters hidden\)$/);
    expect(boundedText('a\u202eb\r\nc')).toBe('a⟨U+202E⟩b\nc');
  });
});
