/**
 * Secret values kept out of serve's answers (the MCP install and import
 * routes, core/serve/mcp-setup.ts). What Reasonix writes itself never holds a
 * secret: a secret goes to $REASONIX_HOME/.env and the config, the target and
 * every field built from them name it as a `${VAR}` reference. What may repeat
 * one is text from elsewhere: a started server's stderr, its error, its tool
 * and prompt names, an error message that quotes what it was given. That text
 * is scrubbed, with two rules so that nothing leaks and nothing else changes:
 *
 * - A secret of SCRUB_ANYWHERE characters or more is replaced wherever it
 *   occurs, also inside a longer word (`--token=abc…` → `--token=[secret]`).
 *   A string that long is not ordinary text by chance.
 * - A shorter one cannot be told from ordinary text inside a word: replacing
 *   every occurrence of a one-character secret would garble every answer. It
 *   is replaced where it stands as a value of its own: the whole string, or a
 *   word set off by spaces, quotes, `=`, `:`, `,`, `;` or brackets
 *   (`token=ab1`, `"ab1"`, `Bearer ab1`). A path, a name or a version that
 *   merely contains its characters is left as it is.
 *
 * Object keys are Reasonix's own words and are left as they are.
 */

/** Length from which a secret is hidden wherever it occurs, also inside a word. */
export const SCRUB_ANYWHERE = 8;

/** What a hidden secret reads as. */
export const HIDDEN = "[secret]";

/** Characters that set a value off from what surrounds it. */
const EDGE = "\\s\"'`=:,;()\\[\\]{}<>";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** Every string in V (deeply) with each secret value hidden: nothing a server or an error repeats can carry one out. */
export function scrubSecrets<T>(v: T, secrets: readonly string[]): T {
  // Longest first, so a secret that contains a shorter one is hidden whole; one pass, so a hidden one is never looked at again.
  const given = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  if (!given.length) return v;
  const long = given.filter((s) => s.length >= SCRUB_ANYWHERE).map(escape);
  const short = given.filter((s) => s.length < SCRUB_ANYWHERE).map(escape);
  const alone = short.length ? [`(?<=^|[${EDGE}])(?:${short.join("|")})(?=[${EDGE}]|$)`] : [];
  const re = new RegExp([...long, ...alone].join("|"), "g");
  const walk = (x: unknown): unknown => {
    if (typeof x === "string") return x.replace(re, HIDDEN);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)]));
    return x;
  };
  return walk(v) as T;
}
