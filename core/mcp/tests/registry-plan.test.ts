// server.json entries (the registry's documented shapes) turned into
// install plans: each package type, arguments, secrets, what is missing,
// and parse errors that name the field.
import { describe, expect, test } from "bun:test";
import { planInstall } from "../registry/plan.ts";
import { parseServerList, parseServerResponse } from "../registry/schema.ts";

const entry = (server: Record<string, unknown>) => parseServerResponse({ server: { name: "io.github.acme/tool", description: "d", version: "1.2.3", ...server } }, "entry");
const none = { env: {}, header: {}, arg: {} };

describe("registry install plans", () => {
  test("pypi -> uvx pkg==version with named and positional arguments", () => {
    const s = entry({
      packages: [
        {
          registryType: "pypi",
          identifier: "acme-mcp",
          version: "0.4.0",
          transport: { type: "stdio" },
          packageArguments: [
            { type: "named", name: "--root", valueHint: "dir", isRequired: true },
            { type: "named", name: "--mode", value: "safe" },
            { type: "positional", valueHint: "db_path", default: "data.db" },
          ],
        },
      ],
    });
    const p = planInstall(s, "tool", { ...none, arg: { root: "/srv" } })!;
    expect(p.missing).toEqual([]);
    expect(p.server).toMatchObject({ type: "stdio", command: "uvx", args: ["acme-mcp==0.4.0", "--root=/srv", "--mode=safe", "data.db"] });
    expect(planInstall(s, "tool", none)!.missing.map((m) => m.key)).toEqual(["root"]);
  });

  test("oci -> docker run with the variables passed by name; a secret becomes a .env reference", () => {
    const s = entry({
      packages: [
        {
          registryType: "oci",
          identifier: "docker.io/acme/tool",
          version: "1.2.3",
          transport: { type: "stdio" },
          environmentVariables: [
            { name: "ACME_TOKEN", isRequired: true, isSecret: true },
            { name: "ACME_REGION", default: "eu" },
          ],
        },
      ],
    });
    const p = planInstall(s, "tool", { ...none, env: { ACME_TOKEN: "t0k" } })!;
    expect(p.server).toMatchObject({ command: "docker", args: ["run", "-i", "--rm", "-e", "ACME_TOKEN", "-e", "ACME_REGION", "docker.io/acme/tool:1.2.3"], env: { ACME_TOKEN: "${MCP_TOOL_ACME_TOKEN}", ACME_REGION: "eu" } });
    expect(p.secrets).toEqual({ MCP_TOOL_ACME_TOKEN: "t0k" });
  });

  test("a remote only when there is no package (or --remote); unsupported entries give no plan", () => {
    const both = entry({
      packages: [{ registryType: "npm", identifier: "@acme/tool", version: "1.2.3", transport: { type: "stdio" } }],
      remotes: [{ type: "sse", url: "https://acme.example/sse" }],
    });
    expect(planInstall(both, "tool", none)!.server).toMatchObject({ command: "npx", args: ["-y", "@acme/tool@1.2.3"] });
    expect(planInstall(both, "tool", none, true)!.server).toMatchObject({ type: "sse", url: "https://acme.example/sse" });
    const nuget = entry({ packages: [{ registryType: "nuget", identifier: "Acme.Tool", version: "1.0.0", transport: { type: "stdio" } }] });
    expect(planInstall(nuget, "tool", none)).toBeUndefined();
    const templated = entry({ remotes: [{ type: "streamable-http", url: "https://{tenant}.acme.example/mcp" }] });
    expect(planInstall(templated, "tool", none)).toBeUndefined();
  });

  test("a remote URL's declared {variables} are asked like other values (a secret one becomes a .env reference); an undeclared placeholder still gives no plan", () => {
    const s = entry({
      remotes: [
        {
          type: "streamable-http",
          url: "https://{tenant}.acme.example/{region}/mcp?k={key}",
          variables: {
            tenant: { description: "your tenant", isRequired: true },
            region: { choices: ["eu", "us"], default: "eu" },
            key: { isSecret: true },
          },
        },
      ],
    });
    const p0 = planInstall(s, "tool", none)!;
    expect(p0.inputs.map((i) => [i.key, i.kind, i.required, i.secret])).toEqual([
      ["tenant", "variable", true, false],
      ["region", "variable", false, false],
      ["key", "variable", true, true],
    ]);
    expect(p0.missing.map((m) => m.key)).toEqual(["tenant", "key"]);
    const p = planInstall(s, "tool", { ...none, variable: { tenant: "acme-1", key: "s3cret" } })!;
    expect(p.missing).toEqual([]);
    expect(p.server).toMatchObject({ type: "http", url: "https://acme-1.acme.example/eu/mcp?k=${MCP_TOOL_KEY}" });
    expect(p.secrets).toEqual({ MCP_TOOL_KEY: "s3cret" });
    const undeclared = entry({ remotes: [{ type: "sse", url: "https://{tenant}.acme.example/sse", variables: { other: {} } }] });
    expect(planInstall(undeclared, "tool", none)).toBeUndefined();
  });

  test("parse errors name the field", () => {
    expect(() => parseServerList({ servers: [{ server: { name: "a/b", version: "1" } }, { server: { name: "a/c" } }] })).toThrow("servers[1].server.version is missing");
    expect(() => entry({ packages: [{ registryType: "npm", identifier: "x", transport: { type: "stdio" }, packageArguments: [{ type: "named" }] }] })).toThrow(
      "entry.server.packages[0].packageArguments[0].name is missing",
    );
    expect(() => parseServerList({ items: [] })).toThrow("servers is missing");
    expect(parseServerList({ servers: [], metadata: { nextCursor: "" } }).nextCursor).toBeUndefined();
  });
});
