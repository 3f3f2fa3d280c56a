// "Browse registry": search the MCP Registry ([mcp] registry_url) through
// GET /api/mcp/registry, page with "More", pick an entry, fill in the values
// its install plan asks for (secrets in password fields, required ones
// marked), install it (POST /api/mcp/registry/install) and see what the
// server offered when it was started once. Everything the registry sends is
// rendered as text; entries Reasonix cannot install show why (manual setup).
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { mcpDialog } from "./mcp-state.ts";
import { TestReport, type TestReportData } from "./TestReport.tsx";

interface Entry { name: string; title: string | null; description: string; version: string; kinds: string[]; status: string | null; websiteUrl: string | null; repository: string | null }
interface Page { servers: Entry[]; nextCursor: string | null; stale: { error: string; fetchedAt: string } | null }
interface Input { key: string; kind: "env" | "header" | "arg" | "variable"; description: string | null; required: boolean; secret: boolean; default: string | null; choices: string[] | null }
interface Plan { server: Entry; name: string; taken: boolean; source: string | null; inputs: Input[]; manual: string | null; canPreferRemote: boolean; /** Asked with remote=1 (this tab's own mark). */ remote?: boolean }
interface Installed { name: string; registryName: string; version: string; source: string; target: string; file: string; secrets: string[]; test?: TestReportData; engine?: { reloaded: boolean; error: string | null } }

const KIND_LABEL: Record<Input["kind"], string> = { env: "environment variable", header: "HTTP header", arg: "argument", variable: "part of the server's URL" };
const fieldId = (i: Input) => `mcp-in-${i.kind}-${i.key.replace(/[^A-Za-z0-9_-]/g, "_")}`;

function Results({ page, more, busy, onPick }: { page: Page; more: () => void; busy: boolean; onPick: (name: string) => void }) {
  return (
    <>
      {page.stale ? <p class="mcp-stale" role="status">{`The registry could not be reached (${page.stale.error}); showing the answer saved ${page.stale.fetchedAt}.`}</p> : null}
      {!page.servers.length ? <p class="muted">No servers match.</p> : null}
      <ul class="mcp-results" aria-label="Registry servers">
        {page.servers.map((s) => (
          <li key={s.name}>
            <button type="button" class="mcp-entry" data-name={s.name} onClick={() => onPick(s.name)}>
              <span class="mcp-entry-name">{s.title ? `${s.title} · ${s.name}` : s.name}</span>
              <span class="muted">{` ${s.version} · ${s.kinds.join(" · ") || "no install method"}${s.status && s.status !== "active" ? ` · ${s.status}` : ""}`}</span>
              <span class="mcp-entry-desc">{s.description}</span>
            </button>
          </li>
        ))}
      </ul>
      {page.nextCursor ? <button type="button" id="mcp-more" disabled={busy} onClick={more}>More</button> : null}
    </>
  );
}

function InstallForm({ plan, back, done, remote, preferRemote }: { plan: Plan; back: () => void; done: (r: Installed) => void; remote: boolean; preferRemote: (on: boolean) => void }) {
  const [err, setErr] = useState("");
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => first.current?.focus(), [plan.server.name]);
  const s = plan.server;
  const submit = async (form: HTMLFormElement) => {
    setErr("");
    const values: Record<Input["kind"], Record<string, string>> = { env: {}, header: {}, arg: {}, variable: {} };
    for (const i of plan.inputs) {
      const v = (form.elements.namedItem(fieldId(i)) as HTMLInputElement | HTMLSelectElement | null)?.value ?? "";
      if (v !== "") values[i.kind][i.key] = v;
    }
    const as = (form.elements.namedItem("mcp-as") as HTMLInputElement).value.trim();
    setBusy(true);
    try {
      done(await api<Installed>("POST", "/api/mcp/registry/install", { name: s.name, version: s.version, as: as || undefined, values, remote: !!plan.remote }));
    } catch (x) {
      setErr((x as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form id="mcp-install" class="mcp-install" onSubmit={(e) => { e.preventDefault(); void submit(e.currentTarget); }}>
      <h3>{s.title ? `${s.title} (${s.name})` : s.name}</h3>
      <p class="mcp-entry-desc">{s.description}</p>
      <p class="muted">{`Version ${s.version}${plan.source ? ` · installs ${plan.source}` : ""}`}</p>
      {plan.canPreferRemote ? (
        <label class="mcp-inline"><input type="checkbox" id="mcp-prefer-remote" checked={remote} onChange={(e) => preferRemote(e.currentTarget.checked)} /> Connect to its hosted server instead of running the package here</label>
      ) : null}
      {plan.manual ? (
        <div id="mcp-manual" role="status">
          <p><strong>Manual setup:</strong> {plan.manual}.</p>
          {s.websiteUrl || s.repository ? <p class="muted">{`See ${s.websiteUrl ?? s.repository}, then add it with reasonix mcp add NAME -- CMD [ARGS…].`}</p> : null}
        </div>
      ) : (
        <>
          <label>Name in your config
            <input name="mcp-as" ref={first} autocomplete="off" placeholder={plan.name} pattern="[A-Za-z0-9_-]+" aria-describedby="mcp-as-hint" />
          </label>
          <p id="mcp-as-hint" class="muted small">{plan.taken ? `"${plan.name}" is already in your config: choose another name.` : `Default: ${plan.name}. Letters, digits, _ and -.`}</p>
          {plan.inputs.length ? <p class="muted small">Fields marked * are required. Secrets are stored in the server host's .env file (mode 0600), never in the config.</p> : null}
          {plan.inputs.map((i) => (
            <label key={fieldId(i)} for={fieldId(i)}>
              <span>{`${i.key}${i.required ? " *" : ""}`}</span>
              <span class="muted small">{` ${KIND_LABEL[i.kind]}${i.secret ? ", secret" : ""}${i.description ? ` — ${i.description}` : ""}`}</span>
              {i.choices ? (
                <select id={fieldId(i)} name={fieldId(i)} required={i.required}>
                  {!i.required ? <option value="">(none)</option> : null}
                  {i.choices.map((c) => <option value={c} selected={c === i.default}>{c}</option>)}
                </select>
              ) : (
                i.secret ? (
                  <input id={fieldId(i)} name={fieldId(i)} type="password" autocomplete="off" required={i.required} />
                ) : (
                  <input id={fieldId(i)} name={fieldId(i)} type="text" autocomplete="off" required={i.required} placeholder={i.default ?? ""} />
                )
              )}
            </label>
          ))}
        </>
      )}
      <p class="error" id="mcp-install-error" role="alert">{err}</p>
      <div class="buttons">
        {plan.manual ? null : <button type="submit" class="primary" id="mcp-install-go" disabled={busy}>{busy ? "Installing and starting…" : "Install and start"}</button>}
        <button type="button" onClick={back}>Back to results</button>
      </div>
    </form>
  );
}

export function McpBrowse({ onAdded }: { onAdded?: (names: string[]) => void }) {
  const [query, setQuery] = useState(mcpDialog.query);
  const [page, setPage] = useState<Page | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [installed, setInstalled] = useState<Installed | null>(null);
  /** The "hosted server instead" box, as ticked (the plan for it follows). */
  const [remote, setRemote] = useState(false);
  const [err, setErr] = useState("");
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLInputElement>(null);
  const run = async (fn: () => Promise<void>) => {
    setErr("");
    setBusy(true);
    try {
      await fn();
    } catch (x) {
      setErr((x as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const search = (cursor?: string) =>
    run(async () => {
      const q = new URLSearchParams({ limit: "20" });
      if (query.trim()) q.set("q", query.trim());
      if (cursor) q.set("cursor", cursor);
      const got = await api<Page>("GET", `/api/mcp/registry?${q}`);
      setPage(cursor && page ? { ...got, servers: [...page.servers, ...got.servers] } : got);
    });
  useLayoutEffect(() => {
    if (mcpDialog.focusPanel) box.current?.focus();
    if (mcpDialog.query) void search();
  }, []);
  const pick = (name: string, remote = false) =>
    run(async () => setPlan({ ...(await api<Plan>("GET", `/api/mcp/registry/plan?${new URLSearchParams({ name, ...(remote ? { remote: "1" } : {}) })}`)), remote }));

  if (installed) {
    return (
      <div id="mcp-installed" role="status">
        <p>{`Installed ${installed.registryName} ${installed.version} as ${installed.name} (${installed.source}) in ${installed.file}.`}</p>
        {installed.secrets.length ? <p class="muted">{`Secrets stored in the .env file: ${installed.secrets.join(", ")}.`}</p> : null}
        {installed.test ? <TestReport r={installed.test} /> : null}
        {installed.engine ? <p class="muted" id="mcp-engine">{installed.engine.reloaded ? "New sessions can use it (the engine was reloaded)." : `Not in use yet: ${installed.engine.error ?? "the engine was not reloaded"}.`}</p> : null}
        <div class="buttons"><button type="button" autoFocus onClick={() => { setInstalled(null); setPlan(null); }}>Back to results</button></div>
      </div>
    );
  }
  if (plan) return <InstallForm plan={plan} back={() => setPlan(null)} remote={remote} preferRemote={(on) => { setRemote(on); void pick(plan.server.name, on); }} done={(r) => { setInstalled(r); onAdded?.([r.name]); }} />;
  return (
    <div class="mcp-browse">
      <form role="search" class="mcp-search" onSubmit={(e) => { e.preventDefault(); void search(); }}>
        <label for="mcp-query" class="sr">Search the MCP Registry</label>
        <input id="mcp-query" ref={box} type="search" value={query} placeholder="Search the MCP Registry (name)" onInput={(e) => setQuery(e.currentTarget.value)} />
        <button type="submit" id="mcp-search-go" disabled={busy}>Search</button>
      </form>
      <p class="error" id="mcp-browse-error" role="alert">{err}</p>
      {busy ? <p class="muted" role="status">Asking the registry…</p> : null}
      {page ? <Results page={page} busy={busy} more={() => void search(page.nextCursor ?? undefined)} onPick={(n) => { setRemote(false); void pick(n); }} /> : null}
    </div>
  );
}
