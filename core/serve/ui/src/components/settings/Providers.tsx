// Providers: the user config's [[providers]] entries. A key is write-only:
// the server says only whether one is stored, never what it is.
import { useState } from "preact/hooks";
import { EFFORT_CHOICES } from "../../../../../protocol/modes.ts";
import { failed, write, type ProviderRow, type Settings, type WriteError } from "./model.ts";
import { t } from "../../../../../protocol/i18n/index.ts";

interface TestResult { ok: boolean; latencyMs: number; models?: string[]; error?: string }
const testLine = (t: TestResult) => (t.ok ? `Connected in ${t.latencyMs} ms${t.models ? ` (${t.models.length} models listed)` : ""}.` : `Failed after ${t.latencyMs} ms: ${t.error}`);

function Provider({ p, secrets }: { p: ProviderRow; secrets: boolean }) {
  const [result, setResult] = useState("");
  const [keyOpen, setKeyOpen] = useState(false);
  const [err, setErr] = useState("");
  const id = `provider-${p.name}`;
  const run = async (path: string, body: Record<string, unknown>, note: string) => {
    setErr("");
    const r = await write(path, body, note);
    if (failed(r)) setErr(r.message);
    return r;
  };
  return (
    <li class="settings-row" data-provider={p.name}>
      <div class="settings-row-main">
        <strong>{p.name}</strong>
        {p.isDefault ? <span class="badge">default</span> : null}
        <span class="muted small">{p.kind} · {p.baseUrl} · {p.models.join(", ")}</span>
        <span class="small key-state">{p.keyEnv ? (p.hasKey ? `key set (${p.keyEnv})` : `no key (${p.keyEnv})`) : "no key needed"}</span>
      </div>
      <div class="settings-actions">
        <button type="button" class="small" data-act="test" aria-label={`Test (${p.name})`} onClick={async () => {
          setResult("Testing…");
          const r = await run("/api/settings/provider/test", { name: p.name }, "");
          setResult(failed(r) ? "" : testLine(r as unknown as TestResult));
        }}>Test</button>
        {!p.isDefault ? <button type="button" class="small" data-act="default" aria-label={`Make default (${p.name})`} onClick={() => void run("/api/settings/provider/default", { name: p.name }, `${p.name} is now the default provider.`)}>Make default</button> : null}
        {p.keyEnv && secrets ? <button type="button" class="small" data-act="key" aria-label={`${p.hasKey ? "Replace key" : "Set key"} (${p.name})`} aria-expanded={keyOpen} onClick={() => setKeyOpen(!keyOpen)}>{p.hasKey ? "Replace key" : "Set key"}</button> : null}
        <label class="small">Effort
          <select data-act="effort" aria-label={`Effort (${p.name})`} value={p.effort ?? "default"} onChange={(e) => void run("/api/settings/provider/effort", { name: p.name, effort: e.currentTarget.value }, `${p.name} starts sessions at effort ${e.currentTarget.value}.`)}>
            {EFFORT_CHOICES.map((v) => <option key={v} value={v}>{v}</option>)}
          </select>
        </label>
      </div>
      {keyOpen ? (
        <form class="settings-inline" onSubmit={async (e) => {
          e.preventDefault();
          const input = e.currentTarget.elements.namedItem("key") as HTMLInputElement;
          const r = await run("/api/settings/provider/key", { name: p.name, key: input.value }, `Key for ${p.name} stored.`);
          input.value = "";
          if (!failed(r)) setKeyOpen(false);
        }}>
          <label>API key for {p.name}<input id={`${id}-key`} name="key" type="password" autocomplete="off" required /></label>
          <button type="submit" class="small primary">Save key</button>
        </form>
      ) : null}
      <p class="small" role="status">{result}</p>
      {err ? <p class="error small" role="alert">{err}</p> : null}
    </li>
  );
}

function AddProvider({ d }: { d: Settings }) {
  const [presetId, setPresetId] = useState(d.presets.find((p) => p.custom)?.id ?? d.presets[0]?.id ?? "custom");
  const [err, setErr] = useState<WriteError | null>(null);
  const [result, setResult] = useState("");
  const preset = d.presets.find((p) => p.id === presetId);
  const body = (f: HTMLFormElement) => {
    const v = (n: string) => ((f.elements.namedItem(n) as HTMLInputElement | HTMLSelectElement | null)?.value ?? "").trim() || undefined;
    return { preset: presetId, name: v("name") ?? presetId, baseUrl: v("baseUrl"), kind: v("kind"), model: v("model"), key: v("key") };
  };
  const fieldErr = (f: string) => (err?.field === f ? { "aria-invalid": true, "aria-describedby": "add-provider-error" } : {});
  return (
    <form id="add-provider" class="settings-form" onSubmit={async (e) => {
      e.preventDefault();
      const form = e.currentTarget;
      setErr(null);
      const r = await write("/api/settings/providers", body(form), `Provider ${body(form).name} added.`);
      if (failed(r)) setErr(r);
      else {
        form.reset();
        setResult("");
      }
    }}>
      <h4>Add a provider</h4>
      <label>Provider
        <select id="add-provider-preset" value={presetId} onChange={(e) => setPresetId(e.currentTarget.value)}>
          {d.presets.map((p) => <option key={p.id} value={p.id}>{p.label}</option>)}
        </select>
      </label>
      <label>Name<input id="add-provider-name" name="name" placeholder={presetId} autocomplete="off" {...fieldErr("name")} /></label>
      {preset?.custom ? (
        <>
          <label>Base URL<input id="add-provider-url" name="baseUrl" placeholder="http://127.0.0.1:8000/v1" autocomplete="off" {...fieldErr("baseUrl")} /></label>
          <label>Protocol
            <select name="kind"><option value="openai">OpenAI Chat Completions</option><option value="anthropic">Anthropic Messages</option><option value="responses">OpenAI Responses</option></select>
          </label>
        </>
      ) : null}
      <label>Model<input id="add-provider-model" name="model" placeholder={preset?.hasModel ? "the preset's default" : "model id"} autocomplete="off" {...fieldErr("model")} /></label>
      <label>API key (optional)<input id="add-provider-key" name="key" type="password" autocomplete="off" {...fieldErr("key")} /></label>
      <div class="settings-actions">
        <button type="button" id="add-provider-test" onClick={async (e) => {
          setErr(null);
          setResult("Testing…");
          const r = await write("/api/settings/providers/test", body(e.currentTarget.form!), "");
          if (failed(r)) {
            setErr(r);
            setResult("");
          } else setResult(testLine(r as unknown as TestResult));
        }}>Test connection</button>
        <button type="submit" class="primary" id="add-provider-save">Add provider</button>
      </div>
      <p id="add-provider-result" class="small" role="status">{result}</p>
      <p id="add-provider-error" class="error small" role="alert">{err?.message ?? ""}</p>
    </form>
  );
}

export function Providers({ d }: { d: Settings }) {
  return (
    <section class="settings-section" aria-labelledby="set-providers-h">
      <h3 id="set-providers-h">{t("web.set.providers")}</h3>
      <p class="muted small">In <code>{d.userConfig}</code>; keys in <code>{d.dotenv}</code> (mode 0600), never shown.</p>
      <ul id="settings-providers" class="settings-list">
        {d.providers.map((p) => <Provider key={p.name} p={p} secrets={d.secretsAllowed} />)}
      </ul>
      {d.secretsAllowed ? <AddProvider d={d} /> : <p class="muted small">Providers and keys can be added only from a browser on the server's own machine (or through an SSH tunnel to it); elsewhere use <code>reasonix setup</code> on that machine.</p>}
    </section>
  );
}
