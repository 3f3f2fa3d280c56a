/**
 * ACP prompt content → the text of one user turn. Text blocks as they are;
 * an editor's selection (embedded resource) and file references (resource
 * links) become marked context the model can tell apart from the request.
 * Image blocks are taken out by promptImages (images.ts) where pictures are
 * accepted (session/prompt); elsewhere (steering) they are refused.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";

const MAX_PROMPT_CHARS = 2_000_000;

export function promptText(blocks: acp.ContentBlock[], field = "prompt", opts: { images?: boolean } = {}): string {
  if (!Array.isArray(blocks) || blocks.length === 0) throw RequestError.invalidParams({ field }, `${field} must be a non-empty list of content blocks`);
  const parts: string[] = [];
  blocks.forEach((b, i) => {
    switch (b.type) {
      case "text":
        if (b.text) parts.push(b.text);
        break;
      case "resource_link":
        parts.push(`[file: ${uriPath(b.uri)}${b.name && !uriPath(b.uri).endsWith(b.name) ? ` (${b.name})` : ""}]`);
        break;
      case "resource": {
        const r = b.resource as { uri: string; text?: string; blob?: string; mimeType?: string | null };
        if (typeof r.text === "string") parts.push(`<context source="${uriPath(r.uri)}">\n${r.text}\n</context>`);
        else parts.push(`[binary resource ${uriPath(r.uri)} (${r.mimeType ?? "unknown type"}) not included]`);
        break;
      }
      case "image":
        if (opts.images) break;
        throw RequestError.invalidParams({ field: `${field}[${i}]` }, `${field}[${i}]: image content is not supported here (pictures go in session/prompt)`);
      case "audio":
        throw RequestError.invalidParams({ field: `${field}[${i}]` }, `${field}[${i}]: ${b.type} content is not supported (promptCapabilities.${b.type} is false)`);
      default:
        throw RequestError.invalidParams({ field: `${field}[${i}].type` }, `${field}[${i}].type: unknown content block type`);
    }
  });
  const text = parts.join("\n\n").trim();
  if (!text) throw RequestError.invalidParams({ field }, `${field} has no text`);
  if (text.length > MAX_PROMPT_CHARS) throw RequestError.invalidParams({ field }, `${field} is ${text.length} characters; the limit is ${MAX_PROMPT_CHARS}`);
  return text;
}

/** file:///a/b → /a/b; other URIs as they are. */
export function uriPath(uri: string): string {
  if (!uri.startsWith("file://")) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}
