// `reasonix mcp serve`: Reasonix as an MCP server over stdio.
import { defineCommand } from "../command.ts";

export default defineCommand<{ allowWrites: boolean; dir?: string; http?: string; token?: string; publicHost?: string[] }>({
  command: "serve",
  describe: "Serve Reasonix as an MCP server on stdio (reasonix_run/resume/cancel/events/rollback/status); read-only unless --allow-writes",
  builder: (y) =>
    y
      .option("allow-writes", { type: "boolean", default: false, describe: "Let clients use permission modes that change files (ask/auto/yolo) and code rollbacks" })
      .option("dir", { type: "string", describe: "Default workspace (default: the current directory)" })
      .option("http", { type: "string", describe: "Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8788), bearer-token protected" })
      .option("token", { type: "string", describe: "With --http: the bearer token (default: a new random one, printed on stderr)" })
      .option("public-host", { type: "string", array: true, describe: "With --http: another Host name to accept besides loopback and the bound address (repeatable)" })
      .example('codex: [mcp_servers.reasonix] command = "reasonix", args = ["mcp", "serve"]', "register it with another agent") as never,
  run: async (args) => {
    if (process.env.REASONIX_TEST_CRASH) (await import("../test-crash.ts")).testCrash("mcp-serve");
    const { resolve } = await import("node:path");
    const { loadConfig, getDotted } = await import("../../core/config/load.ts");
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const { createReasonixMcpServer } = await import("../../core/mcp/server/server.ts");
    const workspace = resolve(args.dir ?? process.cwd());
    // allow_writes is user config only (a project file cannot set [mcp_server]).
    const cfg = loadConfig({ cwd: workspace });
    const allowWrites = args.allowWrites || getDotted(cfg.values, "mcp_server.allow_writes") === true;
    // Usage counters (docs/telemetry.md: surface "mcp-serve", only with [telemetry] mode = on): every session a client starts.
    const { UsageCounters } = await import("../../core/telemetry/counters.ts");
    const counters = new UsageCounters();
    const finish = async () => (await import("../../core/telemetry/session.ts")).finishSurface(cfg.home, "mcp-serve", counters);
    const { server, newServer, close } = createReasonixMcpServer({ workspace, home: cfg.home, allowWrites, onSessionOpen: (s) => void counters.follow(s) });
    if (args.http !== undefined) {
      const { parseAddr } = await import("../../core/serve/addr.ts");
      const { newToken, serveHttp } = await import("../../core/mcp/server/http.ts");
      const addr = parseAddr(args.http);
      const token = args.token || newToken();
      const h = await serveHttp({ ...addr, token, publicHosts: args.publicHost ?? [], newServer });
      process.stderr.write(`reasonix mcp serve: ${h.url} (${allowWrites ? "writes allowed" : "read-only"}; workspace ${workspace})\n`);
      if (!args.token) process.stderr.write(`token: ${token}\n`);
      await new Promise<void>((r) => {
        process.once("SIGINT", r);
        process.once("SIGTERM", r);
      });
      await h.close();
      await close();
      await finish();
      return;
    }
    const transport = new StdioServerTransport();
    const done = new Promise<void>((r) => (transport.onclose = () => r()));
    process.stdin.on("end", () => void transport.close());
    await server.connect(transport);
    process.stderr.write(`reasonix mcp serve: ready on stdio (${allowWrites ? "writes allowed" : "read-only"}; workspace ${workspace})\n`);
    await done;
    await close();
    await finish();
  },
});
