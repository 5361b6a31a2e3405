/** The demo part's one entry: the demo stack the CLI starts (`elicit demo`, `elicit demo --web`). */
export { type DemoStack, startDemo } from './stack.ts';
