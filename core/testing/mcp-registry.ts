// Test support: an MCP Registry on loopback speaking the v0 API
// (`GET /v0/servers?search=&limit=&cursor=`, `GET /v0/servers/{name}/versions/{v}`)
// with the server.json shape of the official one. A search for "boom"
// answers 500; a search for "slow" never answers (until close). Every
// request is counted, so a test can assert that none was made.

import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface RegistryFixture {
  url: string;
  /** Requests received, by path and query. */
  requests: string[];
  /** Entries served (`{ server, _meta }`), editable by the test. */
  entries: Record<string, unknown>[];
  close(): void;
}

const official = (latest = true) => ({ "io.modelcontextprotocol.registry/official": { status: "active", publishedAt: "2026-01-01T00:00:00Z", isLatest: latest } });

/** The fixture's catalogue; `remoteUrl` is where the remote entry points. */
export function sampleEntries(remoteUrl: string, everythingVersion: string): Record<string, unknown>[] {
  const filler = Array.from({ length: 5 }, (_, i) => ({
    server: { name: `com.example/filler-${i + 1}`, description: `Filler server ${i + 1}`, version: "0.1.0", remotes: [{ type: "streamable-http", url: `https://filler${i + 1}.example/mcp` }] },
    _meta: official(),
  }));
  return [
    {
      server: {
        $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        name: "io.github.modelcontextprotocol/everything",
        title: "Everything",
        description: "Exercises every MCP feature",
        version: everythingVersion,
        repository: { url: "https://github.com/modelcontextprotocol/servers", source: "github", subfolder: "src/everything" },
        packages: [
          {
            registryType: "npm",
            registryBaseUrl: "https://registry.npmjs.org",
            identifier: "@modelcontextprotocol/server-everything",
            version: everythingVersion,
            runtimeHint: "npx",
            transport: { type: "stdio" },
            packageArguments: [{ type: "positional", value: "stdio" }],
            environmentVariables: [{ name: "GREETING", description: "optional greeting", isRequired: false }],
          },
        ],
      },
      _meta: official(),
    },
    {
      server: {
        name: "com.example/remote-everything",
        description: "Everything over Streamable HTTP, behind an API key",
        version: "1.0.0",
        remotes: [{ type: "streamable-http", url: remoteUrl, headers: [{ name: "X-Api-Key", description: "your API key", isRequired: true, isSecret: true }] }],
      },
      _meta: official(),
    },
    {
      server: {
        name: "com.example/needs-secret",
        description: "A package that needs a token",
        version: "2.0.0",
        packages: [
          {
            registryType: "npm",
            identifier: "@modelcontextprotocol/server-everything",
            version: everythingVersion,
            transport: { type: "stdio" },
            packageArguments: [{ type: "positional", value: "stdio" }],
            environmentVariables: [{ name: "EXAMPLE_TOKEN", description: "API token", isRequired: true, isSecret: true }],
          },
        ],
      },
      _meta: official(),
    },
    { server: { name: "com.example/broken-entry", description: "A package without an identifier", version: "1.0.0", packages: [{ registryType: "npm", transport: { type: "stdio" } }] }, _meta: official() },
    ...filler,
  ];
}

export function startRegistryFixture(entries: Record<string, unknown>[] = []): RegistryFixture {
  const requests: string[] = [];
  const hung: ((r: Response) => void)[] = [];
  const name = (e: Record<string, unknown>) => String((e.server as { name: string }).name);
  const fixture: RegistryFixture = { url: "", requests, entries, close: () => {} };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      requests.push(u.pathname + u.search);
      if (u.pathname === "/v0/servers") {
        const search = u.searchParams.get("search") ?? "";
        if (search === "boom") return Response.json({ title: "Internal Server Error", status: 500, detail: "database unavailable" }, { status: 500 });
        if (search === "slow") return new Promise<Response>((res) => hung.push(res));
        const all = fixture.entries.filter((e) => name(e).includes(search));
        const start = u.searchParams.get("cursor") ? Number(atob(u.searchParams.get("cursor")!)) : 0;
        const limit = Number(u.searchParams.get("limit") ?? 30);
        const page = all.slice(start, start + limit);
        const next = start + limit < all.length ? btoa(String(start + limit)) : undefined;
        return Response.json({ servers: page, metadata: { count: page.length, ...(next ? { nextCursor: next } : {}) } });
      }
      const m = /^\/v0\/servers\/([^/]+)\/versions\/([^/]+)$/.exec(u.pathname);
      if (m) {
        const e = fixture.entries.find((x) => name(x) === decodeURIComponent(m[1]!));
        const v = decodeURIComponent(m[2]!);
        if (!e || (v !== "latest" && (e.server as { version: string }).version !== v)) return Response.json({ title: "Not Found", status: 404, detail: "Server not found" }, { status: 404 });
        return Response.json(e);
      }
      return new Response("not found", { status: 404 });
    },
  });
  fixture.url = `http://127.0.0.1:${server.port}`;
  fixture.close = () => {
    for (const h of hung.splice(0)) h(new Response("closed", { status: 503 }));
    server.stop(true);
  };
  return fixture;
}

/**
 * A stand-in `npx` to put first on PATH (returns its folder): it accepts
 * exactly the command line an install of the everything entry should write,
 * notes that it ran (in npx-ran.txt of the workspace) and runs that package
 * (no network); anything else exits 3 saying what it got. It lives in the
 * workspace, which the sandbox shows the server (a folder elsewhere would be
 * hidden and the real npx found instead) — and so does the package: the
 * checkout's node_modules may sit in a folder the sandbox hides (a clone
 * under /tmp), so the package is bundled into one file next to the stand-in
 * (`everything.mjs`, also usable by an imported server).
 */
export function npxStandIn(workspace: string, everythingJs: string, nodeBin: string, version: string): string {
  const dir = join(workspace, ".shim-bin");
  mkdirSync(dir, { recursive: true });
  const want = `-y @modelcontextprotocol/server-everything@${version} stdio`;
  const bundle = join(dir, "everything.mjs");
  const b = spawnSync(process.execPath, ["build", everythingJs, "--target=node", "--outfile", bundle], { encoding: "utf8" });
  if (b.status !== 0) throw new Error(`bundling server-everything failed: ${b.stderr}`);
  writeFileSync(
    join(dir, "npx"),
    `#!/bin/sh\nif [ "$*" != ${JSON.stringify(want)} ]; then echo "npx shim: unexpected arguments: $*" >&2; exit 3; fi\necho "$*" >> ${JSON.stringify(join(workspace, "npx-ran.txt"))}\nexec ${JSON.stringify(nodeBin)} ${JSON.stringify(bundle)} stdio\n`,
  );
  chmodSync(join(dir, "npx"), 0o755);
  return dir;
}
