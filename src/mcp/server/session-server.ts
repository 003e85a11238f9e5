/**
 * The MCP protocol server for one client session: `tools/list` from the precomputed listing and
 * `tools/call` through `serveCall`. Each session gets its own instance because the client's
 * negotiated capabilities (elicitation above all) belong to the session.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Tool } from '../../toolkit/tool.js';
import { toolAnnotations } from './annotations.js';
import { serveCall } from './call-tool.js';
import type { CallPeer, CallPolicy } from './call-tool.js';

/** Who the server says it is at initialize. */
export interface ServerIdentity {
  /** The agent identity. */
  readonly name: string;
  readonly version: string;
  /** `expose.agent.mcp.instructions`; omitted from initialize when empty. */
  readonly instructions: string;
}

/**
 * The `tools/list` entries, computed once so every session lists exactly what dispatch serves.
 * The description is the model description, with its trailing `Tags:` line.
 */
export function listTools(tools: readonly Tool[]): ListedTool[] {
  return tools.map((t) => {
    const annotations = toolAnnotations(t);
    return {
      name: t.name,
      title: annotations.title,
      description: t.modelDescription,
      inputSchema: structuredClone(t.inputSchema) as ListedTool['inputSchema'],
      annotations: { ...annotations },
    };
  });
}

const AnyCallToolRequest = z.looseObject({ method: z.literal('tools/call'), params: z.unknown().optional() });

/** Builds a protocol server for one session, sharing the listing and the call policy. */
export function sessionServer(identity: ServerIdentity, listing: readonly ListedTool[], policy: CallPolicy): Server {
  const server = new Server(
    { name: identity.name, version: identity.version },
    identity.instructions === '' ? { capabilities: { tools: {} } } : { capabilities: { tools: {} }, instructions: identity.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...listing] }));
  // Registered under a schema that accepts any params: the SDK then checks them itself and answers
  // a bad call (arguments that are not an object) with -32602 invalid params, where a failure of
  // the schema given here would be reported as -32603, an internal error of this server.
  server.setRequestHandler(AnyCallToolRequest, (raw, extra) => {
    const request = CallToolRequestSchema.parse(raw);
    const peer: CallPeer = {
      // read per call: a session that cannot be asked is found out on every call, never cached
      canElicit: () => server.getClientCapabilities()?.elicitation?.form !== undefined,
      elicit: (form, opts) =>
        extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: form.message,
              requestedSchema: {
                type: 'object',
                properties: { ...form.requestedSchema.properties },
                required: [...form.requestedSchema.required],
              },
            },
          },
          ElicitResultSchema,
          { signal: opts.signal, timeout: opts.timeoutMs },
        ),
    };
    return serveCall(policy, peer, request.params.name, request.params.arguments, extra.signal);
  });
  return server;
}
