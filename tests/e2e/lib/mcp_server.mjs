// An MCP server built with the official @modelcontextprotocol/sdk (McpServer over its Node
// Streamable HTTP transport, stateful: one session per `initialize`), standing in for GitHub's or
// Jira's MCP server behind the gateway. It records every HTTP request it gets (method, headers,
// body) so a test can judge what the gateway sent, with the SDK itself judging the protocol.
//
//   const server = await startMcpServer({ jsonResponse: false });
//   server.url            // http://127.0.0.1:PORT/mcp
//   server.seen           // [{ method, headers, body }]
//   await server.close();

import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function buildServer(seen) {
  const server = new McpServer({ name: 'e2e-tools', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the text it was given', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'delete_repository',
    { description: 'Deletes a repository (destructive)', inputSchema: { name: z.string() } },
    async ({ name }) => {
      seen.deleted.push(name);
      return { content: [{ type: 'text', text: `deleted ${name}` }] };
    },
  );
  server.registerTool(
    'slow_count',
    { description: 'Counts with progress notifications', inputSchema: { upto: z.number() } },
    async ({ upto }, extra) => {
      for (let i = 1; i <= upto; i += 1) {
        const token = extra?._meta?.progressToken;
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: upto },
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { content: [{ type: 'text', text: `counted to ${upto}` }] };
    },
  );
  server.registerTool(
    'fail',
    { description: 'Always reports an error', inputSchema: {} },
    async () => ({ isError: true, content: [{ type: 'text', text: 'the tool failed on purpose' }] }),
  );
  server.registerPrompt(
    'review',
    { description: 'Asks for a review of a diff', argsSchema: { diff: z.string() } },
    ({ diff }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Review this: ${diff}` } }] }),
  );
  server.registerResource(
    'readme',
    'file:///readme.md',
    { description: 'The readme', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, text: '# Readme\nhello' }] }),
  );
  return server;
}

export async function startMcpServer({ jsonResponse = false } = {}) {
  const seen = [];
  seen.deleted = [];
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    for await (const piece of req) body += piece;
    seen.push({ method: req.method, headers: req.headers, body });
    const parsed = body ? JSON.parse(body) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: jsonResponse,
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      await buildServer(seen).connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    sessions: transports,
    async close() {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      httpServer.closeAllConnections?.();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}
