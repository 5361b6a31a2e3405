/**
 * A headless run: a host that declares no elicitation (an SDK client standing in for MCP
 * Inspector's CLI) starts `elicit gateway --policy … --audit … -- <server>`; the policy answers
 * what the host cannot, a URL page is never accepted by a rule, and the audit log has a line per
 * question with the token redacted.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPolicy, PolicyError } from '../../src/gateway/index.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'elicit-gateway-policy-'));
const policyFile = join(dir, 'policy.json');
const auditPath = join(dir, 'audit.jsonl');
let client: Client;

beforeAll(async () => {
  writeFileSync(
    policyFile,
    JSON.stringify({
      rules: [
        {
          match: { tool: 'signup' },
          action: { answer: { name: 'robot', api_token: 's3cr3t-value' } },
        },
        { match: { tool: 'settings' }, action: 'defaults' },
        // A rule that would accept a page declines it instead.
        { match: { mode: 'url' }, action: 'defaults' },
      ],
      otherwise: 'decline',
    }),
  );
  client = new Client({ name: 'cli-host', version: '1' }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        join(root, 'bin', 'elicit.js'),
        'gateway',
        '--policy',
        policyFile,
        '--audit',
        auditPath,
        '--',
        process.execPath,
        join(root, 'test', 'fixtures', 'gateway-asker.ts'),
      ],
      stderr: 'ignore',
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
});

const textOf = (r: unknown) =>
  ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;
const call = async (name: string) => textOf(await client.callTool({ name, arguments: {} }));

describe('elicit gateway --policy, a host without elicitation', () => {
  it('answers from the policy: a fixed answer, the defaults, a declined page, otherwise', async () => {
    expect(await call('signup')).toBe('signed up robot (token of 12 characters)');
    expect(await call('settings')).toBe('size 3, loud true');
    expect(await call('visit')).toBe('page: decline');
    expect(await call('other')).toBe('other: decline');
  });

  it('writes each question and outcome to the audit log, secrets redacted', async () => {
    await new Promise((r) => setTimeout(r, 200));
    const text = readFileSync(auditPath, 'utf8');
    expect(text).not.toContain('s3cr3t');
    expect(text).not.toContain('token=abc');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.tool, l.mode, l.by, l.action])).toEqual([
      ['signup', 'form', 'rule 1', 'accept'],
      ['settings', 'form', 'rule 2', 'accept'],
      ['visit', 'url', 'rule 3', 'decline'],
      ['other', 'form', 'otherwise', 'decline'],
    ]);
    expect(lines[0].content).toEqual({ name: 'robot', api_token: '[redacted]' });
    expect(lines[1].content).toEqual({ size: 3, loud: true });
    expect(lines[2].url).toBe('https://example.com/go');
    expect(lines[0].server).toBe('asker');
  });
});

describe('checkPolicy', () => {
  it('names the rule and what is wrong', () => {
    expect(() => checkPolicy({ rules: [{ action: 'accept' }] }, 'p.json')).toThrow(
      /p\.json: rule 1: the action must be/,
    );
    expect(() => checkPolicy({ rules: [{ match: { who: 'x' }, action: 'ask' }] })).toThrow(
      /unknown match key "who"/,
    );
    expect(() => checkPolicy({ rules: [], otherwise: 'later' })).toThrow(PolicyError);
    expect(checkPolicy({ rules: [], otherwise: 'inbox' }).otherwise).toBe('inbox');
    expect(() => checkPolicy([])).toThrow(/expected \{"rules"/);
  });
});
