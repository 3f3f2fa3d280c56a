// /theme: the colours of the terminal chat and the web UI, one setting saved in
// the user config (core/config/theme.ts). The front end applies what changed.
import { errorMessage } from "../../errors.ts";
import { effectiveTheme, saveTheme } from "../../config/theme.ts";
import { reasonixHome } from "../../home.ts";
import { parseThemeArg, THEME_MODES, THEME_STYLE_TEXT, THEME_STYLES, type Theme } from "../../protocol/theme.ts";
import { failed, registerCommand, result } from "./registry.ts";

const describe = (t: Theme) => `theme ${t.mode} · style ${t.style}`;

registerCommand({
  name: "theme",
  execute: (ctx, arg) => {
    const home = ctx.home ?? reasonixHome();
    const parsed = parseThemeArg(arg);
    if ("error" in parsed) return failed("theme", parsed.error);
    if ("show" in parsed) {
      const t = effectiveTheme(home);
      const env = [t.fromEnv.mode ? "REASONIX_THEME" : "", t.fromEnv.style ? "REASONIX_THEME_STYLE" : ""].filter(Boolean);
      const now = `${describe(t)}${env.length ? ` (${env.join(" and ")} set for this run)` : ""}`;
      return result("theme", [now, ...t.problems], {
        choose: {
          title: "Theme",
          what: "themes",
          note: now,
          items: [
            ...THEME_MODES.map((m) => ({ label: m, value: m, description: m === "auto" ? "follow the terminal's or the browser's light or dark" : `${m} background` })),
            ...THEME_STYLES.map((s) => ({ label: s, value: s, description: `accent: ${THEME_STYLE_TEXT[s]}` })),
          ],
        },
        data: { theme: { mode: t.mode, style: t.style } },
      });
    }
    try {
      saveTheme(home, parsed);
    } catch (e) {
      return failed("theme", `could not save the theme: ${errorMessage(e)}`);
    }
    // What is shown now: the saved value with what the user just chose (an env override of the other part stays).
    const t = { ...effectiveTheme(home), ...parsed };
    return result("theme", [`${describe(t)} (saved in ${home}/config.toml)`], { changed: "theme", data: { theme: { mode: t.mode, style: t.style } } });
  },
});
