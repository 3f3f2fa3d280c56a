import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { editFileTool, multiEditTool } from "../builtin/edit.ts";
import { moveFileTool } from "../builtin/move.ts";
import { readFileTool } from "../builtin/read.ts";
import { writeFileTool } from "../builtin/write.ts";
import { fixture, type Fixture } from "./helpers.ts";

let fx: Fixture;
afterEach(() => fx?.cleanup());

/** Make an outside change visible to the stamp check even on coarse-mtime filesystems. */
const touchLater = (p: string) => {
  const t = statSync(p).mtime.getTime() / 1000 + 5;
  utimesSync(p, t, t);
};

describe("read_file", () => {
  test("numbers lines and pages with offset/limit", async () => {
    fx = fixture();
    fx.write("a.txt", Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    const all = await fx.run(readFileTool, { path: "a.txt" });
    expect(all.ok).toBe(true);
    expect(all.output.split("\n")).toHaveLength(10);
    expect(all.output.split("\n")[0]).toBe("     1\tline 1");
    const page = await fx.run(readFileTool, { path: "a.txt", offset: 4, limit: 3 });
    expect(page.output).toBe("     4\tline 4\n     5\tline 5\n     6\tline 6\n(lines 4-6 of 10; continue with offset=7)");
    const past = await fx.run(readFileTool, { path: "a.txt", offset: 11 });
    expect(past.ok).toBe(false);
    expect(past.output).toContain("has 10 lines");
  });
  test("records the stamp writers check", async () => {
    fx = fixture();
    const p = fx.write("a.txt", "x\n");
    await fx.run(readFileTool, { path: "./a.txt" });
    expect(fx.ctx.readStamps.get(p)).toBe(`${statSync(p).mtimeMs}:${statSync(p).size}`);
  });
  test("detects binary files, empty files, directories, missing files and long lines", async () => {
    fx = fixture();
    fx.write("bin.dat", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    fx.write("empty.txt", "");
    fx.write("long.txt", "y".repeat(5000));
    mkdirSync(join(fx.ws, "dir"));
    expect((await fx.run(readFileTool, { path: "bin.dat" })).output).toContain("binary file");
    expect((await fx.run(readFileTool, { path: "empty.txt" })).output).toContain("is empty");
    const dir = await fx.run(readFileTool, { path: "dir" });
    expect(dir).toMatchObject({ ok: false });
    expect(dir.output).toContain("is a directory");
    expect(await fx.run(readFileTool, { path: "nope.txt" })).toMatchObject({ ok: false, output: "file not found: nope.txt" });
    expect((await fx.run(readFileTool, { path: "long.txt" })).output).toContain("[line truncated, 5000 chars]");
  });
  test("bad input is a failed result, not a crash", async () => {
    fx = fixture();
    expect(await fx.run(readFileTool, {})).toMatchObject({ ok: false, output: 'invalid input: missing required field "path"' });
    expect((await fx.run(readFileTool, { path: "a", offset: 0 })).output).toContain("at least 1");
    expect((await fx.run(readFileTool, { path: 3 })).output).toContain("must be a string");
  });
  test("forbid_read and Reasonix state are unreadable, also through links and ..", async () => {
    fx = fixture({ sandbox: { forbid_read: ["secret"] } });
    fx.write("secret/key.pem", "KEY");
    fx.write(join(fx.home, ".env"), "DEEPSEEK_API_KEY=sk-1\n");
    symlinkSync(join(fx.home, ".env"), join(fx.ws, "env-link"));
    symlinkSync(join(fx.ws, "secret"), join(fx.ws, "s"));
    for (const path of ["secret/key.pem", "s/key.pem", "docs/../secret/key.pem", "env-link", join(fx.home, ".env"), `${fx.ws}/../home/.env`]) {
      const r = await fx.run(readFileTool, { path });
      expect(r.ok).toBe(false);
      expect(r.output).not.toContain("KEY");
      expect(r.output).not.toContain("sk-1");
      expect(r.output).toMatch(/forbid_read|Reasonix state/);
    }
  });
});

describe("reading never blocks the agent", () => {
  // /proc/kmsg is a "regular" file of size 0 that blocks until the kernel logs
  // something; a plain read would freeze the event loop (and cancellation).
  // A FIFO swapped in after the type check is the same hazard.
  test("read_file and the built-in grep return on a never-ending kernel file", async () => {
    let readable = false;
    try {
      readable = statSync("/proc/kmsg").isFile() && process.getuid?.() === 0;
    } catch {}
    if (!readable) {
      console.warn("/proc/kmsg is missing or not readable (not root on Linux): the blocking-read test is skipped");
      return;
    }
    const here = import.meta.dir;
    const script = `
      import { fixture } from ${JSON.stringify(join(here, "helpers.ts"))};
      import { readFileTool } from ${JSON.stringify(join(here, "../builtin/read.ts"))};
      import { runGrep } from ${JSON.stringify(join(here, "../builtin/grep.ts"))};
      const f = fixture();
      const r = await f.run(readFileTool, { path: "/proc/kmsg" });
      const g = await runGrep({ pattern: "x", path: "/proc/kmsg" }, f.ctx, null);
      f.cleanup();
      console.log(JSON.stringify({ read: r.ok !== undefined, grep: g.ok !== undefined }));
    `;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    const out = await new Response(proc.stdout).text();
    const code = await proc.exited;
    clearTimeout(timer);
    expect(proc.signalCode).toBeNull();
    expect(code).toBe(0);
    expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ read: true, grep: true });
  }, 40_000);
});

describe("write_file", () => {
  test("creates parents, reports the receipt, checkpoints first", async () => {
    fx = fixture();
    const r = await fx.run(writeFileTool, { path: "deep/er/new.txt", content: "a\nb\n" });
    expect(r).toEqual({ ok: true, output: "Created deep/er/new.txt (2 lines, 4 bytes)", receipt: "created deep/er/new.txt (2 lines)" });
    expect(fx.read("deep/er/new.txt")).toBe("a\nb\n");
    expect(fx.checkpoints).toEqual([{ path: join(fx.ws, "deep/er/new.txt"), content: null }]);
  });
  test("reports a no-op without touching the file", async () => {
    fx = fixture();
    const p = fx.write("same.txt", "same\n");
    const before = statSync(p).mtimeMs;
    const r = await fx.run(writeFileTool, { path: "same.txt", content: "same\n" });
    expect(r).toMatchObject({ ok: true, receipt: "same.txt unchanged" });
    expect(r.output).toContain("no change");
    expect(statSync(p).mtimeMs).toBe(before);
    expect(fx.checkpoints).toEqual([]);
  });
  test("refuses to overwrite a file it has not read, or that changed since it was read", async () => {
    fx = fixture();
    const p = fx.write("f.txt", "v1\n");
    const unread = await fx.run(writeFileTool, { path: "f.txt", content: "mine\n" });
    expect(unread.ok).toBe(false);
    expect(unread.output).toContain("has not been read");
    await fx.run(readFileTool, { path: "f.txt" });
    fx.write("f.txt", "v2 from the user\n");
    touchLater(p);
    const stale = await fx.run(writeFileTool, { path: "f.txt", content: "mine\n" });
    expect(stale.ok).toBe(false);
    expect(stale.output).toContain("changed on disk since you last read it");
    expect(fx.read("f.txt")).toBe("v2 from the user\n");
    await fx.run(readFileTool, { path: "f.txt" });
    const ok = await fx.run(writeFileTool, { path: "f.txt", content: "mine\n" });
    expect(ok).toMatchObject({ ok: true, receipt: "wrote f.txt (1 line)" });
    expect(fx.checkpoints).toEqual([{ path: p, content: "v2 from the user\n" }]);
    // Its own write refreshes the stamp: a second write needs no re-read.
    expect((await fx.run(writeFileTool, { path: "f.txt", content: "again\n" })).ok).toBe(true);
  });
  test("keeps the file mode", async () => {
    fx = fixture();
    const p = fx.write("run.sh", "#!/bin/sh\n");
    Bun.spawnSync(["chmod", "755", p]);
    await fx.run(readFileTool, { path: "run.sh" });
    await fx.run(writeFileTool, { path: "run.sh", content: "#!/bin/sh\necho hi\n" });
    expect(statSync(p).mode & 0o777).toBe(0o755);
  });
  test("writing through a symlink inside the workspace changes the target, not the link", async () => {
    fx = fixture();
    const target = fx.write("real.txt", "old\n");
    symlinkSync("real.txt", join(fx.ws, "alias.txt"));
    await fx.run(readFileTool, { path: "alias.txt" });
    expect((await fx.run(writeFileTool, { path: "alias.txt", content: "new\n" })).ok).toBe(true);
    expect(lstatSync(join(fx.ws, "alias.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("new\n");
  });
});

describe("write confinement", () => {
  const escapes = (f: Pick<Fixture, "outside" | "home">): [string, string][] => [
    ["../ climbing out", "../outside/x.txt"],
    ["absolute path outside", join(f.outside, "x.txt")],
    ["deep ..", "a/b/../../../outside/x.txt"],
    ["symlinked file pointing out", "link-file"],
    ["symlinked directory pointing out", "link-dir/x.txt"],
    ["symlinked parent of a file that does not exist yet", "link-dir/new/deeper/x.txt"],
    [".. after a symlinked directory", "link-dir/../outside/x.txt"],
    ["link chain", "chain/x.txt"],
    ["Reasonix state", join(f.home, "sessions/x.jsonl")],
    ["Reasonix .env", join(f.home, ".env")],
    ["protected .git/config", ".git/config"],
    ["protected reasonix.toml", "reasonix.toml"],
    ["tilde", "~/x.txt"],
  ];
  const setup = () => {
    fx = fixture();
    fx.write(join(fx.outside, "target.txt"), "outside\n");
    fx.write(".git/config", "[core]\n");
    symlinkSync(join(fx.outside, "target.txt"), join(fx.ws, "link-file"));
    symlinkSync(fx.outside, join(fx.ws, "link-dir"));
    symlinkSync("link-dir", join(fx.ws, "chain"));
    return fx;
  };
  for (const [name] of escapes({ outside: "/", home: "/" })) {
    for (const tool of ["write_file", "edit_file", "multi_edit", "move_file (destination)", "move_file (source)"]) {
      test(`${tool}: ${name} is refused`, async () => {
        const f = setup();
        const p = escapes(f).find(([n]) => n === name)![1];
        f.write("inside.txt", "outside\n");
        const r = await (tool === "write_file"
          ? f.run(writeFileTool, { path: p, content: "pwned" })
          : tool === "edit_file"
            ? f.run(editFileTool, { path: p, old_string: "outside", new_string: "pwned" })
            : tool === "multi_edit"
              ? f.run(multiEditTool, { path: p, edits: [{ old_string: "outside", new_string: "pwned" }] })
              : tool === "move_file (destination)"
                ? f.run(moveFileTool, { source: "inside.txt", destination: p, overwrite: true })
                : f.run(moveFileTool, { source: p, destination: "stolen.txt" }));
        expect(r.ok).toBe(false);
        expect(readFileSync(join(f.outside, "target.txt"), "utf8")).toBe("outside\n");
        expect(existsSync(join(f.outside, "x.txt"))).toBe(false);
        expect(existsSync(join(f.outside, "new"))).toBe(false);
        expect(existsSync(join(f.home, "sessions"))).toBe(false);
        expect(f.checkpoints).toEqual([]);
        if (tool === "move_file (destination)") expect(f.read("inside.txt")).toBe("outside\n");
      });
    }
  }
  test("allow_write and --add-dir roots are writable, the rest of the disk is not", async () => {
    fx = fixture();
    const extra = join(fx.outside, "extra");
    const also = join(fx.outside, "also");
    mkdirSync(extra);
    mkdirSync(also);
    const f = fixture({ sandbox: { allow_write: [extra] }, extraWriteRoots: [also] });
    try {
      expect((await f.run(writeFileTool, { path: join(extra, "a.txt"), content: "a" })).ok).toBe(true);
      expect((await f.run(writeFileTool, { path: join(also, "b.txt"), content: "b" })).ok).toBe(true);
      const r = await f.run(writeFileTool, { path: join(fx.outside, "c.txt"), content: "c" });
      expect(r.ok).toBe(false);
      expect(r.output).toContain("--add-dir");
      expect(readFileSync(join(extra, "a.txt"), "utf8")).toBe("a");
    } finally {
      f.cleanup();
    }
  });
});

describe("edit_file", () => {
  test("replaces a unique match and shows the result", async () => {
    fx = fixture();
    const p = fx.write("a.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const r = await fx.run(editFileTool, { path: "a.ts", old_string: "const b = 2;", new_string: "const b = 20;\nconst bb = 21;" });
    expect(r.ok).toBe(true);
    expect(r.receipt).toBe("edited a.ts (+2 −1)");
    expect(r.output).toContain("     3\tconst bb = 21;");
    expect(fx.read("a.ts")).toBe("const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n");
    expect(fx.checkpoints).toEqual([{ path: p, content: "const a = 1;\nconst b = 2;\nconst c = 3;\n" }]);
  });
  test("zero or several matches are clear errors and change nothing", async () => {
    fx = fixture();
    fx.write("a.ts", "x = 1\nx = 1\nx = 1\n  indented here\n");
    const many = await fx.run(editFileTool, { path: "a.ts", old_string: "x = 1", new_string: "x = 2" });
    expect(many).toMatchObject({ ok: false });
    expect(many.output).toContain("matches 3 times");
    const none = await fx.run(editFileTool, { path: "a.ts", old_string: "y = 1", new_string: "y = 2" });
    expect(none.output).toContain("not found");
    const ws = await fx.run(editFileTool, { path: "a.ts", old_string: "indented   here", new_string: "z" });
    expect(ws.output).toContain("different whitespace");
    const same = await fx.run(editFileTool, { path: "a.ts", old_string: "x", new_string: "x" });
    expect(same.output).toContain("identical");
    const empty = await fx.run(editFileTool, { path: "a.ts", old_string: "", new_string: "x" });
    expect(empty.output).toContain("write_file");
    expect(fx.read("a.ts")).toBe("x = 1\nx = 1\nx = 1\n  indented here\n");
    expect(fx.checkpoints).toEqual([]);
  });
  test("replace_all, CRLF files, missing and binary files", async () => {
    fx = fixture();
    fx.write("a.ts", "x = 1\nx = 1\n");
    const all = await fx.run(editFileTool, { path: "a.ts", old_string: "x = 1", new_string: "x = 2", replace_all: true });
    expect(all).toMatchObject({ ok: true, receipt: "edited a.ts (+2 −2)" });
    expect(fx.read("a.ts")).toBe("x = 2\nx = 2\n");
    fx.write("win.txt", "one\r\ntwo\r\nthree\r\n");
    const crlf = await fx.run(editFileTool, { path: "win.txt", old_string: "one\ntwo", new_string: "1\n2" });
    expect(crlf.ok).toBe(true);
    expect(fx.read("win.txt")).toBe("1\r\n2\r\nthree\r\n");
    expect((await fx.run(editFileTool, { path: "nope.ts", old_string: "a", new_string: "b" })).output).toContain("use write_file");
    fx.write("b.bin", new Uint8Array([1, 0, 2]));
    expect((await fx.run(editFileTool, { path: "b.bin", old_string: "a", new_string: "b" })).output).toContain("binary");
  });
  test("refuses when the file changed since it was read", async () => {
    fx = fixture();
    const p = fx.write("a.ts", "a\n");
    await fx.run(readFileTool, { path: "a.ts" });
    fx.write("a.ts", "a\nb\n");
    touchLater(p);
    const r = await fx.run(editFileTool, { path: "a.ts", old_string: "a", new_string: "c" });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("changed on disk");
  });
});

describe("multi_edit", () => {
  test("applies edits in order", async () => {
    fx = fixture();
    fx.write("a.py", "def f():\n    return 1\n\ndef g():\n    return 2\n");
    const r = await fx.run(multiEditTool, {
      path: "a.py",
      edits: [
        { old_string: "return 1", new_string: "return 10" },
        { old_string: "return 10", new_string: "return 100" },
        { old_string: "def g", new_string: "def h" },
      ],
    });
    expect(r.ok).toBe(true);
    expect(r.receipt).toBe("edited a.py (+2 −2)");
    expect(fx.read("a.py")).toBe("def f():\n    return 100\n\ndef h():\n    return 2\n");
    expect(fx.checkpoints).toHaveLength(1);
  });
  test("all or nothing: a failing edit leaves the file untouched", async () => {
    fx = fixture();
    fx.write("a.py", "a = 1\nb = 2\n");
    const r = await fx.run(multiEditTool, {
      path: "a.py",
      edits: [
        { old_string: "a = 1", new_string: "a = 10" },
        { old_string: "c = 3", new_string: "c = 30" },
      ],
    });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("edit 2 of 2");
    expect(r.output).toContain("No edit was applied");
    expect(fx.read("a.py")).toBe("a = 1\nb = 2\n");
    expect(fx.checkpoints).toEqual([]);
    expect((await fx.run(multiEditTool, { path: "a.py", edits: [] })).output).toContain("non-empty list");
  });
});

describe("move_file", () => {
  test("moves, creates parents, carries the read stamp, checkpoints both ends", async () => {
    fx = fixture();
    const src = fx.write("a.txt", "A\n");
    await fx.run(readFileTool, { path: "a.txt" });
    const r = await fx.run(moveFileTool, { source: "a.txt", destination: "sub/dir/b.txt" });
    expect(r).toEqual({ ok: true, output: "Moved a.txt to sub/dir/b.txt", receipt: "moved a.txt → sub/dir/b.txt" });
    expect(existsSync(src)).toBe(false);
    expect(fx.read("sub/dir/b.txt")).toBe("A\n");
    expect(fx.checkpoints).toEqual([{ path: src, content: "A\n" }, { path: join(fx.ws, "sub/dir/b.txt"), content: null }]);
    expect(fx.ctx.readStamps.has(src)).toBe(false);
    expect(fx.ctx.readStamps.has(join(fx.ws, "sub/dir/b.txt"))).toBe(true);
  });
  test("refuses to clobber unless asked, and refuses directories and links", async () => {
    fx = fixture();
    fx.write("a.txt", "A");
    fx.write("b.txt", "B");
    mkdirSync(join(fx.ws, "d"));
    symlinkSync("a.txt", join(fx.ws, "l"));
    expect((await fx.run(moveFileTool, { source: "a.txt", destination: "b.txt" })).output).toContain("already exists");
    expect(fx.read("b.txt")).toBe("B");
    expect((await fx.run(moveFileTool, { source: "a.txt", destination: "b.txt", overwrite: true })).ok).toBe(true);
    expect(fx.read("b.txt")).toBe("A");
    expect((await fx.run(moveFileTool, { source: "d", destination: "e" })).output).toContain("directory");
    expect((await fx.run(moveFileTool, { source: "l", destination: "m" })).output).toContain("symbolic link");
    expect((await fx.run(moveFileTool, { source: "b.txt", destination: "d" })).output).toContain("is a directory");
    expect((await fx.run(moveFileTool, { source: "zz", destination: "y" })).output).toContain("not found");
  });
});
