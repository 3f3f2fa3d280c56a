/**
 * MCP tools as Reasonix tools: `mcp__<server>__<tool>`, the server's JSON
 * schema and description passed through verbatim (so the prompt's tool
 * block stays byte-stable while the server's list does), and results turned
 * into the text the model reads: text, images (described; the tool channel
 * carries text), embedded resources, resource links and structuredContent.
 */
import { sha256 } from "../trust/inputs.ts";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitAnswer } from "../engine/types.ts";
import type { ToolDefinition, ToolResult } from "../tools/types.ts";

/** Providers accept tool names of ^[A-Za-z0-9_-]{1,64}$. */
const MAX_NAME = 64;

export const toolPrefix = (server: string) => `mcp__${server}__`;

export function toolName(server: string, tool: string): string {
  const name = `${toolPrefix(server)}${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (name.length <= MAX_NAME) return name;
  const hash = sha256(tool).slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

export interface CallOptions {
  signal: AbortSignal;
  onProgress?(p: { progress: number; total?: number; message?: string }): void;
  /** The user behind this call, for the server's input requests (elicitation); absent: declined. */
  elicit?(ask: { message: string; schema: Record<string, unknown> }): Promise<ElicitAnswer>;
}

/** What a tool adapter needs from its server connection. */
export interface ToolCaller {
  readonly name: string;
  call(tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallToolResult>;
}

/** Cap on what one call returns to the model (head and tail kept). */
export const OUTPUT_LIMIT = 30_000;

function cap(text: string): string {
  if (text.length <= OUTPUT_LIMIT) return text;
  const half = Math.floor(OUTPUT_LIMIT / 2);
  return `${text.slice(0, half)}\n[… ${text.length - OUTPUT_LIMIT} characters truncated …]\n${text.slice(-half)}`;
}

const b64Bytes = (data: string) => Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);

/** The model-facing text of a tools/call result. */
export function resultText(r: CallToolResult): string {
  const parts: string[] = [];
  for (const c of r.content ?? []) {
    switch (c.type) {
      case "text":
        parts.push(c.text);
        break;
      case "image":
        parts.push(`[image: ${c.mimeType}, ${b64Bytes(c.data)} bytes]`);
        break;
      case "audio":
        parts.push(`[audio: ${c.mimeType}, ${b64Bytes(c.data)} bytes]`);
        break;
      case "resource": {
        const res = c.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
        if (typeof res.text === "string") parts.push(`[resource ${res.uri}${res.mimeType ? ` (${res.mimeType})` : ""}]\n${res.text}`);
        else parts.push(`[resource ${res.uri}${res.mimeType ? ` (${res.mimeType})` : ""}: ${b64Bytes(res.blob ?? "")} bytes of binary data]`);
        break;
      }
      case "resource_link":
        parts.push(`[resource link: ${c.uri}${c.name ? ` "${c.name}"` : ""}${c.mimeType ? ` (${c.mimeType})` : ""}${c.description ? ` — ${c.description}` : ""}]`);
        break;
      default:
        parts.push(`[${(c as { type: string }).type} content]`);
    }
  }
  if (r.structuredContent !== undefined) {
    const json = JSON.stringify(r.structuredContent);
    // Servers usually repeat it as text; say it once.
    if (!parts.some((p) => p.trim() === json || safeEq(p, r.structuredContent))) parts.push(`structuredContent: ${json}`);
  }
  if (parts.length === 0 && "toolResult" in r) parts.push(JSON.stringify((r as unknown as { toolResult: unknown }).toolResult));
  return cap(parts.join("\n"));
}

function safeEq(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

export function toToolResult(r: CallToolResult): ToolResult {
  const text = resultText(r);
  return r.isError ? { ok: false, output: text || "the MCP tool reported an error without details" } : { ok: true, output: text };
}

/** One server tool as a ToolDefinition; `readOnlyHint` tools are readers (parallel, allowed in read-only mode). */
export function adaptTool(caller: ToolCaller, tool: Tool): ToolDefinition<Record<string, unknown>> {
  const name = toolName(caller.name, tool.name);
  const readOnly = tool.annotations?.readOnlyHint === true;
  const title = tool.annotations?.title ?? tool.title;
  return {
    name,
    description: tool.description ?? title ?? `${tool.name} (MCP server ${caller.name})`,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    kind: readOnly ? "read" : "external",
    summarize: (input) => `${name} ${JSON.stringify(input ?? {}).slice(0, 160)}`,
    async run(input, ctx) {
      const elicit = ctx.elicit ? (a: { message: string; schema: Record<string, unknown> }) => ctx.elicit!({ ...a, server: caller.name, ...(ctx.callId ? { callId: ctx.callId } : {}) }) : undefined;
      const r = await caller.call(tool.name, input ?? {}, { signal: ctx.signal, onProgress: ctx.emitProgress, ...(elicit ? { elicit } : {}) });
      return toToolResult(r);
    },
  };
}
