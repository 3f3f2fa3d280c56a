// Secret values kept out of serve's answers (core/serve/scrub.ts): a long
// secret is hidden wherever it occurs; a short one (a single character, say)
// only where it stands as a value of its own, so it never garbles the words
// and paths that merely contain it, and never leaks in the forms a value is
// written in.
import { expect, test } from "bun:test";
import { HIDDEN, SCRUB_ANYWHERE, scrubSecrets } from "../scrub.ts";

/** An install answer as serve gives it (core/serve/mcp-setup.ts), with a report from a started server. */
const answer = (stderr: string, error: string) => ({
  installed: true,
  name: "needs-secret",
  registryName: "com.example/needs-secret",
  version: "1.0.0",
  source: "npm @modelcontextprotocol/server-everything@2025.1.1",
  target: "npx -y @modelcontextprotocol/server-everything@2025.1.1",
  file: "/home/eve/.reasonix/config.toml",
  secrets: ["MCP_NEEDS_SECRET_EXAMPLE_TOKEN"],
  stale: null,
  test: { name: "needs-secret", ok: false, status: "failed", error, timings: { total: 12 }, tools: [{ name: "mcp__needs-secret__echo", raw: "echo", readOnly: true }], prompts: ["simple_prompt"], resources: [], stderr },
});

test("a one-character secret leaves the answer intact: only where it stands as a value is it hidden", () => {
  const given = answer("token=e rejected\nAuthorization: Bearer e\nretrying with \"e\" (e)", "e");
  const out = scrubSecrets(given, ["e"]);
  expect(out).toEqual({ ...given, test: { ...given.test, error: HIDDEN, stderr: `token=${HIDDEN} rejected\nAuthorization: Bearer ${HIDDEN}\nretrying with "${HIDDEN}" (${HIDDEN})` } });
});

test("nothing leaks in the forms a value is written in, for a short secret and a long one", () => {
  for (const secret of ["x", "a.b", "p4ss", "(x)", "tok-SECRET-4242-never-echoed"]) {
    const forms = [secret, ` ${secret} `, `--token=${secret}`, `token: ${secret}`, `"${secret}"`, `'${secret}'`, `Bearer ${secret}`, `[${secret}]`, `{"k":"${secret}"}`, `a=${secret},b=${secret};`, `<${secret}>`, `\`${secret}\``];
    for (const f of forms) {
      const out = scrubSecrets({ stderr: f, list: [f] }, [secret]);
      const leaked = [out.stderr, ...out.list].some((text) => text.replaceAll(HIDDEN, "").includes(secret));
      expect({ secret, f, leaked }).toEqual({ secret, f, leaked: false });
    }
  }
});

test("a long secret is hidden also inside a word; a short one is not looked for there (its characters are ordinary text)", () => {
  const long = "abcdefgh-secret";
  expect(long.length).toBeGreaterThanOrEqual(SCRUB_ANYWHERE);
  expect(scrubSecrets(`x${long}y and ${long}`, [long])).toBe(`x${HIDDEN}y and ${HIDDEN}`);
  expect(scrubSecrets("/home/pat/pattern-1.2", ["pat", "1.2", "-"])).toBe("/home/pat/pattern-1.2");
  // A regular expression's characters in a secret are plain characters.
  expect(scrubSecrets("a.b axb a+b", ["a.b"])).toBe(`${HIDDEN} axb a+b`);
});

test("a secret that contains another is hidden whole, once; keys and non-strings are left as they are; no secrets, nothing changes", () => {
  expect(scrubSecrets("abcdefghij", ["abc", "abcdefghij"])).toBe(HIDDEN);
  expect(scrubSecrets("k=abc", ["abc", "abcdefghij"])).toBe(`k=${HIDDEN}`);
  expect(scrubSecrets({ e: 1, f: [true, null, "e"] }, ["e"])).toEqual({ e: 1, f: [true, null, HIDDEN] });
  const v = { a: "secret e" };
  expect(scrubSecrets(v, [])).toBe(v);
  expect(scrubSecrets(v, [""])).toBe(v);
});
