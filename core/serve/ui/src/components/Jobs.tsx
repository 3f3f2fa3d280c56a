// The open session's background shell jobs (bash run_in_background) above the
// composer: how many run, and a list to open (id, status, command). Read from
// GET /api/sessions/:id/jobs every few seconds while the page is visible —
// jobs start and end between the events the page gets. Hidden when there are none.
import { useEffect, useState } from "preact/hooks";
import { api, sessionPath } from "../api.ts";

interface Job {
  id: string;
  command: string;
  status: string;
  exitCode: number | null;
  signal: string | null;
}

const POLL_MS = 2000;

const oneLine = (c: string) => {
  const t = c.replace(/\s*\n\s*/g, " ⏎ ").trim();
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
};

export function Jobs({ id }: { id: string | null }) {
  const [jobs, setJobs] = useState<Job[]>([]);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    setJobs([]);
    if (!id) return;
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      if (!document.hidden) {
        const r = await api<{ jobs: Job[] }>("GET", sessionPath(id, "jobs")).catch(() => undefined);
        if (stop) return;
        if (r) setJobs(r.jobs);
      }
      timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [id]);
  if (!jobs.length) return null;
  const running = jobs.filter((j) => j.status === "running").length;
  return (
    <div class="jobs-bar" id="jobs">
      <button type="button" class="link" id="jobs-toggle" aria-expanded={open} aria-controls="jobs-list" onClick={() => setOpen(!open)}>
        {`${running} background ${running === 1 ? "job" : "jobs"} running`}{jobs.length > running ? ` · ${jobs.length - running} ended` : ""}
      </button>
      {open ? (
        <ul id="jobs-list">
          {jobs.map((j) => (
            <li key={j.id} data-job={j.id} data-status={j.status}>
              <code>{j.id}</code> <span class="muted">{j.status === "running" ? "running" : j.exitCode !== null ? `exit ${j.exitCode}` : j.signal ?? j.status}</span> <code>{oneLine(j.command)}</code>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
