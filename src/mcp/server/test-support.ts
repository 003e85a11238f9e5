/** Shared pieces for the MCP server tests. Not exported from the module index. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../../agenttest/eventually.js';

/** How a test client answers an approval request; absent means it cannot be asked at all. */
export type ElicitAnswer = (request: ElicitRequest['params']) => Promise<unknown>;

/** An official SDK client over streamable HTTP. */
export async function connectClient(url: string, elicit?: ElicitAnswer, headers?: Readonly<Record<string, string>>): Promise<Client> {
  const client = new Client(
    { name: 'fisk-test-client', version: '1.0.0' },
    elicit === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  if (elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => (await elicit(request.params)) as ElicitResult);
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), headers === undefined ? {} : { requestInit: { headers: { ...headers } } }),
  );
  return client;
}

/** A promise with its resolver outside, for holding a tool until a test lets it go. */
export interface Latch {
  readonly promise: Promise<void>;
  open(): void;
}

export function latch(): Latch {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Resolves once `predicate` holds: the suite's bounded wait, for a condition that needs no value back. */
export async function until(predicate: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  await eventually(predicate, what, limitMs);
}

/** The text of a tool result's first content block. */
export function resultText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  const first = content[0];
  return first?.type === 'text' && first.text !== undefined ? first.text : '';
}
