/** elicit/url: analyzeUrl per call, beside the WHATWG URL parse it starts with. */
import { analyzeUrl } from '../src/url/index.ts';
import { pair, type Row } from './harness.ts';

const CASES: readonly [string, string][] = [
  ['plain https', 'https://calendar.example.com/elicit/3f9a?state=abc'],
  ['international name', 'https://münchen.de/karte'],
  ['homograph', 'https://аpple.com/login'],
  ['disallowed character', 'https://ɢoogle.com/'],
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
