// First use with no provider at all: the same flow as `reasonix setup` —
// pick a preset, paste the key, test the connection (latency or the exact
// error), pick a model from the list, save. The server writes the user config
// and .env on its own host (loopback listeners only).
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { state } from "../store.ts";

interface PresetInfo { id: string; label: string; needsKey: boolean; hasModel: boolean; custom: boolean }
interface TestResult { ok: boolean; method: string; latencyMs: number; models?: string[]; error?: string }

export function ProviderSetup({ onDone }: { onDone: () => Promise<void> }) {
  const setup = state.status?.setup ?? {};
  const presets: PresetInfo[] = setup.presets ?? [];
  const [presetId, setPresetId] = useState(presets[0]?.id ?? "custom");
  const [test, setTest] = useState<TestResult | null>(null);
  const [err, setErr] = useState("");
  const [busy, setBusy] = useState(false);
  const [needsKey, setNeedsKey] = useState(true);
  const first = useRef<HTMLSelectElement>(null);
  useLayoutEffect(() => first.current?.focus(), []);
  const preset = presets.find((p) => p.id === presetId);
  const keyWanted = preset?.custom ? needsKey : !!preset?.needsKey;

  if (!setup.allowed) {
    return (
      <div class="card-page" id="provider-setup">
        <main>
          <div class="card">
            <h1>No model provider yet</h1>
            <p class="error">Provider setup from the browser is only available on a loopback listener. Run <code>reasonix setup</code> on the server host, then reload.</p>
          </div>
        </main>
      </div>
    );
  }

  const body = (form: HTMLFormElement) => {
    const v = (n: string) => (form.elements.namedItem(n) as HTMLInputElement | HTMLSelectElement | null)?.value.trim() ?? "";
    return { preset: presetId, name: v("name") || presetId, baseUrl: v("baseUrl") || undefined, kind: v("kind") || undefined, key: keyWanted ? v("key") || undefined : undefined, model: v("model") || undefined };
  };
  const run = async (form: HTMLFormElement, what: "test" | "save") => {
    setErr("");
    setBusy(true);
    try {
      if (what === "test") setTest(await api("POST", "/api/setup/provider/test", body(form)));
      else {
        await api("POST", "/api/setup/provider", body(form));
        await onDone();
      }
    } catch (x) {
      setErr((x as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="card-page" id="provider-setup">
      <main>
        <form class="card setup-form" onSubmit={(e) => { e.preventDefault(); void run(e.currentTarget, "save"); }}>
          <h1>Set up a model provider</h1>
          <p class="muted">No provider is configured on this host yet. The entry goes to this host's Reasonix config, the key to its credential file (mode 0600).</p>
          <label>Provider
            <select id="setup-preset" ref={first} value={presetId} onChange={(e) => { setPresetId(e.currentTarget.value); setTest(null); }}>
              {presets.map((p) => <option value={p.id}>{p.label}</option>)}
            </select>
          </label>
          {preset?.custom ? (
            <>
              <label>Base URL<input id="setup-base-url" name="baseUrl" type="url" placeholder="http://127.0.0.1:8000/v1" required /></label>
              <label>Protocol
                <select name="kind"><option value="openai">OpenAI Chat Completions</option><option value="anthropic">Anthropic Messages</option></select>
              </label>
              <label class="check"><input type="checkbox" checked={needsKey} onChange={(e) => setNeedsKey(e.currentTarget.checked)} /> needs an API key</label>
            </>
          ) : null}
          <label>Name<input id="setup-name" name="name" placeholder={presetId} autocomplete="off" /></label>
          {keyWanted ? <label>API key<input id="setup-key" name="key" type="password" autocomplete="off" required /></label> : null}
          <button type="button" id="setup-test" disabled={busy} onClick={(e) => void run(e.currentTarget.form!, "test")}>Test connection</button>
          {test ? (
            <p id="setup-test-result" class={test.ok ? "muted" : "error"} role="status">
              {test.ok ? `Connected in ${test.latencyMs} ms (${test.models ? `${test.models.length} models listed` : "one-token request answered"}).` : `Failed after ${test.latencyMs} ms: ${test.error}`}
            </p>
          ) : null}
          <label>Model
            {test?.models?.length ? (
              <select id="setup-model" name="model">{test.models.map((m) => <option value={m}>{m}</option>)}</select>
            ) : (
              <input id="setup-model" name="model" placeholder={preset?.hasModel ? "the preset's default" : "model id"} required={!preset?.hasModel} autocomplete="off" />
            )}
          </label>
          <button class="primary wide" type="submit" disabled={busy}>Save and start</button>
          <p class="error" id="provider-setup-error" role="alert">{err}</p>
        </form>
      </main>
    </div>
  );
}
