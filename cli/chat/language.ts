// `/language zh|en|auto`: the chat's interface language, saved in the user
// config (`language`, as `reasonix config set language …` saves it) and in
// effect at once: the status line, menus and prompts redraw in it, and the
// browser UI (/web, serve) reads the saved setting. Bare `/language` shows it.
import { errorMessage } from "../../core/errors.ts";
import { setConfigValue } from "../../core/config/edit.ts";
import { homePaths } from "../../core/home.ts";
import { LANGUAGE_SETTINGS, resolveLanguage, setLanguage, t } from "../../core/protocol/i18n/index.ts";

/** Run `/language arg` on the chat's config values (the engine reads the same object); the line to show. */
export function languageCommand(config: Record<string, unknown>, arg: string): { text: string; tone: "info" | "warn" | "error" } {
  const word = arg.trim().toLowerCase();
  if (!word) {
    const reasoning = (config.agent as { reasoning_language?: unknown } | undefined)?.reasoning_language;
    return { tone: "info", text: t("language.show", { lang: resolveLanguage(config.language, process.env), setting: String(config.language ?? "auto"), reasoning: String(reasoning ?? "auto") }) };
  }
  if (!(LANGUAGE_SETTINGS as readonly string[]).includes(word)) return { tone: "warn", text: t("language.usage") };
  const path = homePaths().config;
  try {
    setConfigValue(path, "language", word);
  } catch (e) {
    return { tone: "error", text: errorMessage(e) };
  }
  // reasoning_language = auto follows this from the next message (core/engine/reasoning-language.ts).
  config.language = word;
  const lang = resolveLanguage(word, process.env);
  setLanguage(lang);
  return { tone: "info", text: t("language.saved", { lang, path }) };
}
