// Workspace trust: asked once per content. A workspace whose project files
// would loosen the user's protections shows every file that approving covers
// and what each can do (the server's description, core/trust/describe.ts),
// and approving sends exactly the digests shown (409 when a file changed since).
import { useEffect, useState } from "preact/hooks";
import { api, HttpError, type Json } from "../api.ts";
import { loadModels, loadSessions } from "../store.ts";

export function Trust() {
  const [t, setT] = useState<Json | null>(null);
  const [hidden, setHidden] = useState(true);
  const [err, setErr] = useState("");
  // The report with `seen`: the digests of exactly what the card shows.
  const fetchReport = async (): Promise<Json> => {
    const r = await api("GET", "/api/trust");
    const seen: Record<string, string> = {};
    for (const i of r.inputs as { rel: string; sha256: string }[]) seen[i.rel] = i.sha256;
    r.seen = seen;
    return r;
  };
  useEffect(() => {
    void fetchReport()
      .then((r) => {
        if (r.trusted || !r.loosening?.length) return;
        if (localStorage.getItem(`reasonix.trust-dismissed:${r.workspace}`) === JSON.stringify(r.seen)) return;
        setT(r);
        setHidden(false);
      })
      .catch(() => {});
  }, []);
  return (
    <section id="trust" class="trust" hidden={hidden} aria-label="Workspace trust">
      {t ? (
        <>
          <h2>This workspace's files want to loosen your protections</h2>
          <p>Until you trust their exact content they are ignored; any later change to the files asks again. {`Trusting approves all ${(t.inputs as Json[]).length} files below:`}</p>
          <ul class="inputs">
            {(t.inputs as Json[]).map((i) => (
              <li key={i.rel}>
                <code>{i.rel}</code>
                <span class="muted">{` ${i.status === "changed" ? "changed since approval" : i.status} · ${String(i.sha256).slice(0, 12)}`}</span>
                <div>{i.can}</div>
                {(i.items as string[]).length ? <ul>{(i.items as string[]).map((x, n) => <li key={n}><code>{x}</code></li>)}</ul> : null}
                {i.problem ? <div class="error">{i.problem}</div> : null}
              </li>
            ))}
          </ul>
          <div class="actions">
            <button type="button" class="primary" id="trust-approve" onClick={async () => {
              setErr("");
              try {
                await api("POST", "/api/trust", { inputs: t.seen });
                setHidden(true);
                await Promise.all([loadModels(), loadSessions()]);
              } catch (x) {
                if (!(x instanceof HttpError && x.status === 409)) return setErr((x as Error).message);
                // Changed since shown: show the files as they are now, to be reviewed (and approved) afresh.
                const now = await fetchReport().catch(() => null);
                if (now) setT(now);
                setErr(`${(x as Error).message}. The list now shows the files as they are.`);
              }
            }}>Trust these files</button>
            <button type="button" id="trust-dismiss" onClick={() => {
              localStorage.setItem(`reasonix.trust-dismissed:${t.workspace}`, JSON.stringify(t.seen));
              setHidden(true);
            }}>Keep ignoring</button>
          </div>
          <p class="error">{err}</p>
        </>
      ) : null}
    </section>
  );
}
