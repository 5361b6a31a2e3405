/** elicit/url: analyzeUrl per call, beside the WHATWG URL parse it starts with. */
import { analyzeUrl } from '../src/url/index.ts';
import { pair, type Row } from './harness.ts';

const CASES: readonly [string, string][] = [
  ['plain https', 'https://calendar.example.com/elicit/3f9a?state=abc'],
  ['international name', 'https://münchen.de/karte'],
  ['homograph', 'https://аpple.com/login'],
  ['disallowed character', 'https://ɢoogle.com/'],
  ['well-known name in the subdomain', 'https://www.paypa1.com-secure.evil.com/'],
  // The costliest hosts for the mention search: the most tokens DNS allows, and the most
  // readings per token (two-reading letters).
  ['most tokens (127)', `https://${Array(61).fill('a-a').join('.')}.com/`],
  ['most readings', `https://${Array(7).fill('þłıœþ-þłıœþ-þłıœþ').join('.')}.is/`],
];

export default function run(): Row[] {
  return CASES.map(([name, input]) =>
    pair(
      'url: analyzeUrl',
      name,
      { name: 'analyzeUrl', run: () => analyzeUrl(input) },
      { name: 'new URL', run: () => new URL(input) },
    ),
  );
}
