/**
 * The tool registry of ACP sessions: the built-in tools, with file text and
 * bash routed through the client when it offers fs/* and terminal/*. The
 * tools' own checks (path policy, write confinement, read-before-write) run
 * first, unchanged; only the final read or write goes to the editor.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { getDotted } from "../config/load.ts";
import { bashOutputLimit } from "../config/limits.ts";
import { defaultShell, wrapCommand } from "../sandbox/index.ts";
import { bashSandboxOptions, bashTool, HeadTail, timeoutFor } from "../tools/builtin/bash.ts";
import { builtinTools } from "../tools/builtin/index.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { FileIO, ToolContext, ToolDefinition, ToolResult } from "../tools/types.ts";
import type { AcpLog } from "./log.ts";

export interface ClientLink {
  client: acp.AgentContext | undefined;
  caps: acp.ClientCapabilities;
  log?: AcpLog;
  /** A bash call of this session now runs in this client terminal (shown in its tool call). */
  terminalStarted?(sessionId: string, terminalId: string): void;
}

const FILE_TOOLS = new Set(["read_file", "write_file", "edit_file", "multi_edit"]);

/** fs/* through the client, for the capabilities it advertised. */
export function clientFiles(link: ClientLink, sessionId: string): FileIO | undefined {
  const { client, caps } = link;
  if (!client || (!caps.fs?.readTextFile && !caps.fs?.writeTextFile)) return undefined;
  const io: FileIO = {};
  if (caps.fs?.readTextFile) {
    io.readText = async (path) => {
      try {
        return (await client.request("fs/read_text_file", { sessionId, path })).content;
      } catch (e) {
        // The editor does not know the file (not open, not readable for it): the disk has the truth.
        link.log?.info(`fs/read_text_file ${path} failed (${e instanceof Error ? e.message : String(e)}); reading the disk`);
        return null;
      }
    };
  }
  if (caps.fs?.writeTextFile) {
    io.writeText = async (path, content) => {
      await client.request("fs/write_text_file", { sessionId, path, content });
    };
  }
  return io;
}

function withFiles(tool: ToolDefinition, link: () => ClientLink): ToolDefinition {
  return { ...tool, run: (input, ctx) => tool.run(input, { ...ctx, files: clientFiles(link(), ctx.sessionId) ?? ctx.files }) };
}

/**
 * bash in a client terminal: the same sandbox command line wrapCommand builds
 * for a local run. Falls back to the local run when the wrapped command needs
 * descriptors a client process cannot inherit (the seccomp program under bwrap).
 */
function terminalBash(link: () => ClientLink): ToolDefinition {
  return {
    ...bashTool,
    run: async (input: any, ctx: ToolContext): Promise<ToolResult> => {
      const { client, caps, log, terminalStarted } = link();
      const command = typeof input?.command === "string" ? input.command : "";
      // A background job is the session's own (core/tools/jobs.ts), never an editor terminal.
      if (!client || !caps.terminal || !command || input?.run_in_background === true) return bashTool.run(input, ctx);
      const wrapped = await wrapCommand([...defaultShell(), command], bashSandboxOptions(ctx));
      if (!wrapped.ok) return { ok: false, output: wrapped.refusal.message };
      if (wrapped.fds.length > 0) {
        wrapped.finish();
        log?.info("bash runs locally: its sandbox needs descriptors a client terminal cannot pass on");
        return bashTool.run(input, ctx);
      }
      // The editor starts the terminal with its own environment (tokens and all):
      // `env -i` replaces it with exactly the allowlisted environment a local run
      // gets. Passed-through values may be secrets and would show in the
      // command line, so with any of them set the command runs locally instead.
      const passthrough = getDotted(ctx.config, "sandbox.env_passthrough");
      if (Array.isArray(passthrough) && passthrough.some((k) => typeof k === "string" && wrapped.env[k] !== undefined)) {
        wrapped.finish();
        log?.info("bash runs locally: sandbox.env_passthrough values must not travel in a terminal command line");
        return bashTool.run(input, ctx);
      }
      const argv = ["env", "-i", ...Object.entries(wrapped.env).map(([k, v]) => `${k}=${v}`), ...wrapped.argv];
      const limit = bashOutputLimit(ctx.config);
      const timeoutS = timeoutFor(input, ctx);
      // Only the variables Reasonix owns go over the wire, never the whole environment.
      const env = ["TMPDIR", "TMP", "TEMP"].filter((k) => wrapped.env[k]).map((name) => ({ name, value: wrapped.env[name]! }));
      const sessionId = ctx.sessionId;
      let terminalId: string | undefined;
      let timedOut = false;
      let aborted = false;
      const kill = () => void (terminalId && client.request("terminal/kill", { sessionId, terminalId }).catch(() => {}));
      const onAbort = () => ((aborted = true), kill());
      const timer = timeoutS ? setTimeout(() => ((timedOut = true), kill()), timeoutS * 1000) : undefined;
      try {
        terminalId = (await client.request<acp.CreateTerminalResponse>("terminal/create", { sessionId, command: argv[0]!, args: argv.slice(1), cwd: wrapped.cwd, env, outputByteLimit: limit * 4 })).terminalId;
        terminalStarted?.(sessionId, terminalId);
        if (ctx.signal.aborted) onAbort();
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        const exit = await client.request<acp.WaitForTerminalExitResponse>("terminal/wait_for_exit", { sessionId, terminalId });
        const out = await client.request<acp.TerminalOutputResponse>("terminal/output", { sessionId, terminalId });
        const text = new HeadTail(limit);
        text.push(out.output);
        const notes: string[] = [];
        if (timedOut) notes.push(`[timed out after ${timeoutS} s; the command was killed]`);
        else if (aborted) notes.push("[cancelled; the command was killed]");
        else if (exit.signal) notes.push(`[killed by ${exit.signal}]`);
        else if (exit.exitCode !== 0) notes.push(`[exit code ${exit.exitCode}]`);
        if (out.truncated) notes.push("[the editor's terminal kept only the end of the output]");
        let body = text.text().replace(/\n$/, "");
        if (body === "" && notes.length === 0) body = "(no output)";
        const output = [body, ...notes].filter((s) => s !== "").join("\n");
        return { ok: exit.exitCode === 0 && !timedOut && !aborted, output };
      } catch (e) {
        return { ok: false, output: `bash could not run in the editor's terminal: ${e instanceof Error ? e.message : String(e)}` };
      } finally {
        if (timer) clearTimeout(timer);
        ctx.signal.removeEventListener("abort", onAbort);
        if (terminalId) await client.request("terminal/release", { sessionId, terminalId }).catch(() => {});
        for (const v of wrapped.finish().violations) log?.info(`sandbox: the command created protected ${v.path}; moved aside to ${v.movedTo}`);
      }
    },
  } as ToolDefinition;
}

export function clientToolRegistry(link: () => ClientLink): ToolRegistry {
  const r = new ToolRegistry();
  for (const t of builtinTools as readonly ToolDefinition[]) {
    if (FILE_TOOLS.has(t.name)) r.register(withFiles(t, link));
    else if (t.name === "bash") r.register(terminalBash(link));
    else r.register(t);
  }
  return r;
}
