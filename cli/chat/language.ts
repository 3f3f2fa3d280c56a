// `/language zh|en|auto`: the chat's interface language, saved in the user
// config (`language`, as `reasonix config set language …` saves it) and in
// effect at once: the status line, menus and prompts redraw in it, and the
// browser UI (/web, serve) reads the saved setting. Bare `/language` shows it.
// `/reasoning-language zh|en|auto`: `[agent] reasoning_language`, the same way.
import { errorMessage } from "../../core/errors.ts";
import { setConfigValue } from "../../core/config/edit.ts";
import { homePaths } from "../../core/home.ts";
import { LANGUAGE_SETTINGS, resolveLanguage, setLanguage, t } from "../../core/protocol/i18n/index.ts";

export interface LanguageReply {
  text: string;
  tone: "info" | "warn" | "error";
}

const agentOf = (config: Record<string, unknown>) => (config.agent ?? {}) as Record<string, unknown>;

/** The current settings, for a bare `/language` or `/reasoning-language`. */
const shown = (config: Record<string, unknown>): LanguageReply => ({
  tone: "info",
  text: t("language.show", { lang: resolveLanguage(config.language, process.env), setting: String(config.language ?? "auto"), reasoning: String(agentOf(config).reasoning_language ?? "auto") }),
});

const isSetting = (word: string) => (LANGUAGE_SETTINGS as readonly string[]).includes(word);

/**
 * `/command arg` for the setting `key`: bare shows both settings; a valid word
 * is saved in the user config, then `apply` puts it in effect and says so.
 */
function change(config: Record<string, unknown>, arg: string, key: string, usage: string, apply: (word: string, path: string) => string): LanguageReply {
  const word = arg.trim().toLowerCase();
  if (!word) return shown(config);
  if (!isSetting(word)) return { tone: "warn", text: t(usage) };
  const path = homePaths().config;
  try {
    setConfigValue(path, key, word);
  } catch (e) {
    return { tone: "error", text: errorMessage(e) };
  }
  return { tone: "info", text: apply(word, path) };
}

/** Run `/language arg` on the chat's config values (the engine reads the same object); the line to show. */
export const languageCommand = (config: Record<string, unknown>, arg: string): LanguageReply =>
  change(config, arg, "language", "language.usage", (word, path) => {
    // reasoning_language = auto follows this from the next message (core/engine/reasoning-language.ts).
    config.language = word;
    const lang = resolveLanguage(word, process.env);
    setLanguage(lang);
    return t("language.saved", { lang, path });
  });

/** Run `/reasoning-language arg`: the engine reads it at the tail of the next message. */
export const reasoningLanguageCommand = (config: Record<string, unknown>, arg: string): LanguageReply =>
  change(config, arg, "agent.reasoning_language", "language.reasoningUsage", (word, path) => {
    // In place: the engine holds the same values (and may hold the same [agent] table).
    if (!config.agent || typeof config.agent !== "object") config.agent = {};
    (config.agent as Record<string, unknown>).reasoning_language = word;
    return t("language.reasoningSaved", { setting: word, path });
  });
