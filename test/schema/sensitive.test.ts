/** checkSchema warns about fields that look like they ask for sensitive information. */
import { describe, expect, it } from 'vitest';
import { checkSchema } from '../../src/schema/index.ts';

function flagged(properties: Record<string, unknown>): string[] {
  const r = checkSchema({ type: 'object', properties });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.warnings.filter((w) => w.code === 'sensitive_field').map((w) => String(w.path[1]));
}

const str = (extra: Record<string, unknown> = {}) => ({ type: 'string', ...extra });

describe('sensitive fields', () => {
  it('every spelling of a name: camelCase, snake_case, kebab-case, upper case', () => {
    const names = [
      'password',
      'userPassword',
      'PASSWORD',
      'new_password',
      'passwd',
      'pwd',
      'passphrase',
      'apiKey',
      'api_key',
      'API-Key',
      'APIKey',
      'apikey',
      'accessKey',
      'secret',
      'clientSecret',
      'secret_key',
      'accessToken',
      'refresh_token',
      'bearer',
      'token',
      'otp',
      'privateKey',
      'cardNumber',
      'credit_card',
      'cvv',
      'CVC',
      'iban',
      'accountNumber',
      'routing-number',
      'ssn',
      'socialSecurity',
      'pin',
    ];
    const props = Object.fromEntries(names.map((n) => [n, str()]));
    expect(flagged(props).sort()).toEqual([...names].sort());
  });

  it('titles and descriptions count too', () => {
    expect(
      flagged({
        a: str({ title: 'API key' }),
        b: str({ description: 'Your card number, without spaces' }),
        c: { type: 'number', title: 'Bank account number' },
        d: str({ title: 'Sort code' }),
      }),
    ).toEqual(['a', 'b', 'c', 'd']);
  });

  it('look-alikes that ask for no secret are left alone', () => {
    expect(
      flagged({
        maxTokens: { type: 'integer' },
        tokens: str(),
        keyboard: str(),
        secretary: str(),
        pinned: str(),
        passport_country: str(),
        accountName: str(),
        rememberPassword: { type: 'boolean' },
        tokenType: { type: 'string', enum: ['bearer', 'mac'] },
      }),
    ).toEqual([]);
  });

  it('the warning says what the field looks like and what to use instead', () => {
    const r = checkSchema({ type: 'object', properties: { apiKey: str() } });
    expect(r.warnings).toContainEqual(
      expect.objectContaining({
        code: 'sensitive_field',
        path: ['properties', 'apiKey'],
        message: expect.stringMatching(/looks like it asks for an API key.*ask\.secret/),
      }),
    );
  });
});
