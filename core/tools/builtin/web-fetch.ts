import type { ToolDefinition } from "../types.ts";
import { boundedFetch, type FetchLimits } from "../web/fetch.ts";
import { htmlToMarkdown } from "../web/html-markdown.ts";
import { done, fail, guarded, humanSize, str } from "./common.ts";

interface Input { url?: string }

const hostOf = (raw: unknown): string => {
  try {
    return new URL(String(raw)).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return "";
  }
};

/** [web_fetch] settings; allow_private is honoured from the user config only (core/config/schema.ts userOnlyKeys). */
export function fetchLimits(config: Record<string, unknown>): FetchLimits {
  const w = (config.web_fetch ?? {}) as Record<string, unknown>;
  const n = (v: unknown, def: number) => (typeof v === "number" && v > 0 ? v : def);
  return {
    maxBytes: n(w.max_bytes, 2 * 1024 * 1024),
    timeoutMs: n(w.timeout_seconds, 30) * 1000,
    maxRedirects: typeof w.max_redirects === "number" && w.max_redirects >= 0 ? Math.min(w.max_redirects, 20) : 5,
    allowPrivate: w.allow_private === true,
  };
}

export const webFetchTool: ToolDefinition<Input> = {
  name: "web_fetch",
  description:
    "Fetch one http(s) URL and return it as text: HTML pages become Markdown, text and JSON come back as they are. Read-only; each domain needs the user's permission (rule WebFetch(domain:example.com)). Redirects to another host are reported, not followed.",
  inputSchema: {
    type: "object",
    properties: { url: { type: "string", description: "http:// or https:// URL" } },
    required: ["url"],
    additionalProperties: false,
  },
  kind: "network",
  summarize: (i) => `web_fetch ${i?.url ?? ""}`,
  domains: (i) => [hostOf(i?.url)],
  run: guarded(async (input, ctx) => {
    const url = str(input, "url");
    const limits = fetchLimits(ctx.config);
    const r = await boundedFetch(url, limits, ctx.signal);
    if (r.kind === "refused") return fail(`web_fetch refused: ${r.reason}`);
    if (r.kind === "redirect_elsewhere") return fail(`${r.url} redirects to another host: ${r.location} (call web_fetch with that URL to follow it)`);
    const type = r.contentType.split(";")[0]!.trim().toLowerCase();
    const head = `${r.url} (HTTP ${r.status}, ${type || "no content-type"}, ${humanSize(r.body.length)}${r.truncated ? `, cut at the ${humanSize(limits.maxBytes)} limit` : ""})`;
    if (r.status >= 400) return fail(`${head}\n${r.body.toString("utf8").slice(0, 2000)}`);
    if (type === "text/html" || type === "application/xhtml+xml") {
      const { title, markdown } = htmlToMarkdown(r.body.toString("utf8"), r.url);
      return done(`${head}\n${title ? `# ${title}\n\n` : ""}${markdown}`, `fetched ${r.url}`);
    }
    if (type.startsWith("text/") || type.includes("json") || type.includes("xml") || type === "") return done(`${head}\n${r.body.toString("utf8")}`, `fetched ${r.url}`);
    return fail(`${head}: this content type is not read as text`);
  }),
};
