/**
 * A conformance client built on elicit/client. The suite runs it as
 *   node examples/conformance-client/client.ts <server-url>
 * with MCP_CONFORMANCE_SCENARIO naming the scenario.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  answerInputRequests,
  attachElicitation,
  completeByDefault,
  identityOf,
  scriptedRenderer,
} from '../../src/client/index.ts';

const url = process.argv.at(-1) as string;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const log = (line: string) => process.stderr.write(`${line}\n`);

const client = new Client({ name: 'elicit-conformance-client', version: '1.0.0' });
const elicit = attachElicitation(client, {
  renderer: scriptedRenderer({ policy: 'accept-defaults', log }),
  rateLimit: false,
});

async function defaults(): Promise<void> {
  client.setVersionNegotiation({ mode: 'legacy' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const result = await elicit.callTool({ name: 'test_client_elicitation_defaults', arguments: {} });
  log(JSON.stringify(result));
}

type Raw = {
  resultType?: string;
  inputRequests?: Record<string, { method: string; params?: unknown }>;
  requestState?: string;
};

async function requestState(): Promise<void> {
  client.setVersionNegotiation({ mode: { pin: '2026-07-28' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { fetch: completeByDefault() }),
  );
  const ctx = () => ({
    server: identityOf(client),
    revision: client.getNegotiatedProtocolVersion() ?? '2026-07-28',
    signal: new AbortController().signal,
  });
  // Driven by hand so another call can go out between a round and its retry.
  const call = (name: string, extra: Record<string, unknown> = {}) =>
    client.request({ method: 'tools/call', params: { name, arguments: {}, ...extra } } as never, {
      allowInputRequired: true,
    }) as Promise<Raw>;

  const first = await call('test_mrtr_echo_state');
  const unrelated = await call('test_mrtr_unrelated');
  log(`unrelated: ${JSON.stringify(unrelated)}`);
  if (first.resultType === 'input_required') {
    const inputResponses = await answerInputRequests(
      elicit.pipeline,
      first.inputRequests ?? {},
      ctx(),
    );
    const retry: Record<string, unknown> = { inputResponses };
    if (first.requestState !== undefined) retry.requestState = first.requestState;
    log(`echo_state: ${JSON.stringify(await call('test_mrtr_echo_state', retry))}`);
  }
  const noState = await call('test_mrtr_no_state');
  if (noState.resultType === 'input_required') {
    const inputResponses = await answerInputRequests(
      elicit.pipeline,
      noState.inputRequests ?? {},
      ctx(),
    );
    const retry: Record<string, unknown> = { inputResponses };
    if (noState.requestState !== undefined) retry.requestState = noState.requestState;
    log(`no_state: ${JSON.stringify(await call('test_mrtr_no_state', retry))}`);
  }
  const plain = await call('test_mrtr_no_result_type');
  log(`no_result_type (treated as complete): ${JSON.stringify(plain)}`);
}

try {
  if (scenario.startsWith('elicitation-sep1034')) await defaults();
  else if (scenario === 'sep-2322-client-request-state') await requestState();
  else throw new Error(`unknown scenario ${JSON.stringify(scenario)}`);
  await client.close();
  process.exit(0);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
}
