/**
 * Provider presets for `reasonix setup`: the endpoint, wire protocol and key
 * variable of common services, so a newcomer never writes TOML by hand. Every
 * field lands in an ordinary `[[providers]]` entry the user can edit later.
 */

export interface Preset {
  id: string;
  label: string;
  kind: "openai" | "anthropic";
  /** Empty for the "any OpenAI-compatible URL" preset: the user gives it. */
  baseUrl: string;
  /** The .env variable the key is stored under; absent = the service needs no key. */
  keyEnv?: string;
  /** Model used when none is given and the model list cannot be asked for. */
  model?: string;
  /** Runs on this machine (no key, plain http on localhost). */
  local?: boolean;
}

export const PRESETS: readonly Preset[] = [
  { id: "openai", label: "OpenAI", kind: "openai", baseUrl: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY", model: "gpt-4.1" },
  { id: "anthropic", label: "Anthropic", kind: "anthropic", baseUrl: "https://api.anthropic.com", keyEnv: "ANTHROPIC_API_KEY", model: "claude-sonnet-4-5" },
  { id: "deepseek", label: "DeepSeek", kind: "openai", baseUrl: "https://api.deepseek.com", keyEnv: "DEEPSEEK_API_KEY", model: "deepseek-chat" },
  { id: "openrouter", label: "OpenRouter", kind: "openai", baseUrl: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY", model: "openrouter/auto" },
  { id: "groq", label: "Groq", kind: "openai", baseUrl: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY", model: "llama-3.3-70b-versatile" },
  { id: "ollama", label: "Ollama (this machine)", kind: "openai", baseUrl: "http://127.0.0.1:11434/v1", local: true },
  { id: "lmstudio", label: "LM Studio (this machine)", kind: "openai", baseUrl: "http://127.0.0.1:1234/v1", local: true },
  { id: "custom", label: "Any OpenAI-compatible URL", kind: "openai", baseUrl: "" },
];

export function findPreset(id: string): Preset | undefined {
  const want = id.toLowerCase().replace(/[\s_-]/g, "");
  return PRESETS.find((p) => p.id === want || p.label.toLowerCase().replace(/[\s_-]/g, "") === want);
}

/** A key variable name derived from a provider name: "my-proxy" → MY_PROXY_API_KEY. */
export const keyEnvFor = (name: string): string => `${name.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "PROVIDER"}_API_KEY`.replace(/^(\d)/, "_$1");
