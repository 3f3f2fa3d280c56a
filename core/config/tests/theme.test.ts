// The one theme setting ([ui] theme / theme_style) the terminal chat and the
// web UI both follow: the older [web] theme still read, REASONIX_THEME and
// REASONIX_THEME_STYLE for one run, and /theme through the shared dispatcher
// saving it as `reasonix config set` would.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { effectiveTheme, savedTheme } from "../theme.ts";
import { runCommand, type CommandContext } from "../../host/commands/index.ts";
import { parseThemeArg } from "../../protocol/theme.ts";

const home = (config?: string) => {
  const d = mkdtempSync(join(tmpdir(), "rx-theme-"));
  if (config !== undefined) writeFileSync(join(d, "config.toml"), config);
  return d;
};

test("[ui] theme wins over the older [web] theme, which is read when [ui] has none; defaults otherwise", () => {
  expect(savedTheme(home())).toEqual({ mode: "auto", style: "default" });
  expect(savedTheme(home('[web]\ntheme = "dark"\n'))).toEqual({ mode: "dark", style: "default" });
  expect(savedTheme(home('[web]\ntheme = "dark"\n[ui]\ntheme = "light"\ntheme_style = "rose"\n'))).toEqual({ mode: "light", style: "rose" });
  // A bad value is not a crash: the default shows.
  expect(savedTheme(home('[ui]\ntheme = "neon"\n'))).toEqual({ mode: "auto", style: "default" });
});

test("REASONIX_THEME and REASONIX_THEME_STYLE override for one run; bad values are named and ignored", () => {
  const h = home('[ui]\ntheme = "light"\ntheme_style = "rose"\n');
  expect(effectiveTheme(h, { REASONIX_THEME: "dark" })).toEqual({ mode: "dark", style: "rose", fromEnv: { mode: true }, problems: [] });
  expect(effectiveTheme(h, { REASONIX_THEME_STYLE: "Forest" })).toMatchObject({ mode: "light", style: "forest", fromEnv: { style: true } });
  const bad = effectiveTheme(h, { REASONIX_THEME: "neon", REASONIX_THEME_STYLE: "plaid" });
  expect(bad).toMatchObject({ mode: "light", style: "rose", fromEnv: {} });
  expect(bad.problems).toHaveLength(2);
});

test("/theme parses modes and styles, and the dispatcher saves each part in [ui] of the front end's home", async () => {
  expect(parseThemeArg("")).toEqual({ show: true });
  expect(parseThemeArg(" Dark ")).toEqual({ mode: "dark" });
  expect(parseThemeArg("ocean")).toEqual({ style: "ocean" });
  expect(parseThemeArg("neon")).toHaveProperty("error");
  const h = home('# mine\n[web]\ntheme = "light"\n');
  const ctx = { surface: "chat", home: h } as unknown as CommandContext;
  const r1 = (await runCommand(ctx, "theme", "dark"))!;
  expect(r1).toMatchObject({ ok: true, changed: "theme", data: { theme: { mode: "dark", style: "default" } } });
  const r2 = (await runCommand(ctx, "theme", "forest"))!;
  expect(r2.data).toEqual({ theme: { mode: "dark", style: "forest" } });
  const text = readFileSync(join(h, "config.toml"), "utf8");
  expect(text).toContain("# mine");
  expect(savedTheme(h)).toEqual({ mode: "dark", style: "forest" });
  const shown = (await runCommand(ctx, "theme", ""))!;
  expect(shown.choose?.items.map((i) => i.value)).toEqual(["auto", "light", "dark", "default", "ocean", "forest", "rose", "amber"]);
  expect((await runCommand(ctx, "theme", "neon"))!.ok).toBe(false);
  // Where there are no colours of ours to set, it says what to use instead.
  expect((await runCommand({ ...ctx, surface: "run" } as CommandContext, "theme", "dark"))!.unavailable).toBe(true);
});
