// Test support: an MCP Registry on loopback speaking the v0 API
// (`GET /v0/servers?search=&limit=&cursor=`, `GET /v0/servers/{name}/versions/{v}`)
// with the server.json shape of the official one. A search for "boom"
// answers 500; a search for "slow" never answers (until close). Every
// request is counted, so a test can assert that none was made.

import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

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

/**
 * Entries whose packages run through uvx (pypi) and docker (oci), for tests
 * that put stand-ins for those tools on PATH: the pypi one has an optional
 * variable with a default, the oci one a fixed runtime flag and a required
 * secret the container receives by name.
 */
export const PYPI_ENTRY = { name: "com.example/everything-py", identifier: "mcp-server-everything-example", version: "0.3.1" };
/** The oci package as the current schema has it: the tag in the identifier, no package version. */
export const OCI_ENTRY = { name: "com.example/everything-oci", identifier: "ghcr.io/example/everything:1.4.0", version: "1.4.0" };
export function runtimeEntries(): Record<string, unknown>[] {
  return [
    {
      server: {
        name: PYPI_ENTRY.name,
        description: "Everything, as a Python package",
        version: PYPI_ENTRY.version,
        packages: [
          {
            registryType: "pypi",
            registryBaseUrl: "https://pypi.org",
            identifier: PYPI_ENTRY.identifier,
            version: PYPI_ENTRY.version,
            runtimeHint: "uvx",
            transport: { type: "stdio" },
            packageArguments: [{ type: "positional", value: "stdio" }],
            environmentVariables: [{ name: "LOG_LEVEL", description: "log level", isRequired: false, default: "info" }],
          },
        ],
      },
      _meta: official(),
    },
    {
      server: {
        name: OCI_ENTRY.name,
        description: "Everything, as a container image",
        version: OCI_ENTRY.version,
        packages: [
          {
            registryType: "oci",
            identifier: OCI_ENTRY.identifier,
            runtimeHint: "docker",
            transport: { type: "stdio" },
            runtimeArguments: [{ type: "named", name: "--pull", value: "never" }],
            packageArguments: [{ type: "positional", value: "stdio" }],
            environmentVariables: [{ name: "OCI_TOKEN", description: "API token", isRequired: true, isSecret: true }],
          },
        ],
      },
      _meta: official(),
    },
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
 * server-everything bundled into one file under DIR (made once per folder;
 * returns its path): the checkout's node_modules may sit in a folder the
 * sandbox hides (a clone under /tmp), a file in the workspace it shows. Its
 * docs folder goes beside it, where the server looks for the files it
 * offers as resources (`<bundle's folder>/../docs`).
 */
export function bundleEverything(dir: string, everythingJs: string): string {
  const root = join(dir, "everything");
  const bundle = join(root, "dist", "everything.mjs");
  if (existsSync(bundle)) return bundle;
  const b = spawnSync(process.execPath, ["build", everythingJs, "--target=node", "--outfile", bundle], { encoding: "utf8" });
  if (b.status !== 0) throw new Error(`bundling server-everything failed: ${b.stderr}`);
  cpSync(join(dirname(everythingJs), "docs"), join(root, "docs"), { recursive: true });
  return bundle;
}

/**
 * A stand-in for TOOL (npx, uvx, docker) in `.shim-bin` of the workspace
 * (returns that folder, to put first on PATH): it accepts exactly the
 * command line WANT, and, when given, only with each of REQUIRE_ENV's
 * variables set to its value; then notes that it ran (`<tool>-ran.txt` in
 * the workspace) and runs server-everything over stdio (no network,
 * no package manager, no container). Anything else exits 3 saying what it
 * got. It lives in the workspace because the sandbox shows the server that
 * folder (one elsewhere would be hidden and the real tool found instead).
 */
export function toolStandIn(workspace: string, o: { tool: string; want: string; everythingJs: string; nodeBin: string; requireEnv?: Record<string, string> }): string {
  const dir = join(workspace, ".shim-bin");
  mkdirSync(dir, { recursive: true });
  const bundle = bundleEverything(dir, o.everythingJs);
  const q = JSON.stringify;
  const envChecks = Object.entries(o.requireEnv ?? {})
    .map(([k, v]) => `if [ "\${${k}-}" != ${q(v)} ]; then echo "${o.tool} shim: ${k} is not the expected value" >&2; exit 3; fi\n`)
    .join("");
  writeFileSync(
    join(dir, o.tool),
    `#!/bin/sh\nif [ "$*" != ${q(o.want)} ]; then echo "${o.tool} shim: unexpected arguments: $*" >&2; exit 3; fi\n${envChecks}echo "$*" >> ${q(join(workspace, `${o.tool}-ran.txt`))}\nexec ${q(o.nodeBin)} ${q(bundle)} stdio\n`,
  );
  chmodSync(join(dir, o.tool), 0o755);
  return dir;
}

/** The stand-in `npx` for an install of the everything entry (`npx -y @modelcontextprotocol/server-everything@VERSION stdio`). */
export function npxStandIn(workspace: string, everythingJs: string, nodeBin: string, version: string): string {
  return toolStandIn(workspace, { tool: "npx", want: `-y @modelcontextprotocol/server-everything@${version} stdio`, everythingJs, nodeBin });
}
