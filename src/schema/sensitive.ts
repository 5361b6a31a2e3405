/**
 * Fields that look like they ask for sensitive information. The spec says form mode must not be
 * used for passwords, API keys, tokens, payment or account numbers: those go through URL mode,
 * where the value never passes the client. `checkSchema` warns (`sensitive_field`); elicit/server
 * refuses to send such a form unless the author says the field is not one.
 *
 * Words are taken from the field's name (camelCase, snake_case and kebab-case split), title and
 * description; only text and number fields are judged (a yes/no or a choice asks for no secret).
 */
import type { Field } from './types.ts';

/** One word that is enough, and what it is. */
const WORDS: ReadonlyMap<string, string> = new Map([
  ['password', 'a password'],
  ['passwd', 'a password'],
  ['pwd', 'a password'],
  ['passphrase', 'a password'],
  ['passcode', 'a password'],
  ['pin', 'a PIN'],
  ['secret', 'a secret'],
  ['apikey', 'an API key'],
  ['token', 'a token'],
  ['bearer', 'a token'],
  ['otp', 'a one-time code'],
  ['totp', 'a one-time code'],
  ['privatekey', 'a private key'],
  ['cvv', 'a card security code'],
  ['cvc', 'a card security code'],
  ['cvv2', 'a card security code'],
  ['cardnumber', 'a card number'],
  ['creditcard', 'a card number'],
  ['iban', 'an account number'],
  ['accountnumber', 'an account number'],
  ['ssn', 'a social security number'],
]);

/** Two words in a row, and what they are. */
const PAIRS: ReadonlyMap<string, string> = new Map([
  ['api key', 'an API key'],
  ['api token', 'a token'],
  ['access key', 'an API key'],
  ['private key', 'a private key'],
  ['secret key', 'a secret'],
  ['credit card', 'a card number'],
  ['debit card', 'a card number'],
  ['card number', 'a card number'],
  ['security code', 'a card security code'],
  ['account number', 'an account number'],
  ['bank account', 'an account number'],
  ['routing number', 'an account number'],
  ['sort code', 'an account number'],
  ['social security', 'a social security number'],
]);

function words(text: string | undefined): string[] {
  if (text === undefined) return [];
  return text
    .slice(0, 2000)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** What `field` looks like it asks for ("a password"), or undefined. */
export function sensitiveKind(field: Field): string | undefined {
  if (field.kind !== 'text' && field.kind !== 'number') return undefined;
  for (const text of [field.name, field.title, field.description]) {
    const w = words(text);
    for (let i = 0; i < w.length; i++) {
      const one = WORDS.get(w[i] as string);
      if (one !== undefined) return one;
      const two = PAIRS.get(`${w[i]} ${w[i + 1]}`);
      if (two !== undefined) return two;
    }
  }
  return undefined;
}
