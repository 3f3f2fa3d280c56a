/**
 * The seccomp filter bwrap installs when [sandbox] network = false: a tiny
 * classic-BPF program that makes `socket(AF_UNIX, …)` fail with EACCES.
 *
 * Why: the network namespace already hides every TCP port and abstract unix
 * socket of the host, but a *pathname* unix socket is a file, and it can sit
 * anywhere the user can read (an ssh-agent under /var/tmp, a Docker or
 * database socket under $HOME). bwrap cannot filter connect() by path, and a
 * read-only mount does not stop connect() either, so no unix socket is
 * created at all. `socketpair()` stays allowed (libuv, Python and shells use
 * it for pipes between their own processes); it makes an unnamed pair that
 * reaches nothing outside.
 *
 * Also refused: io_uring_setup (ENOSYS, so programs fall back to plain
 * syscalls), because IORING_OP_SOCKET would create sockets past the filter;
 * on x86_64 every x32-ABI syscall, and 32-bit socketcall(SYS_SOCKET, …) whose
 * family the filter cannot read. A syscall from an architecture the program
 * does not know kills the process. Only x86_64 and aarch64 hosts get a
 * program; anything else is refused by the caller (fail closed).
 */

const AUDIT_ARCH = { X86_64: 0xc000003e, I386: 0x40000003, AARCH64: 0xc00000b7, ARM: 0x40000028 } as const;
const AF_UNIX = 1;
const EACCES = 13;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
// seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little endian: low half first)
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0 = 16;

/** Syscall numbers per ABI: socket, io_uring_setup, socketcall (none on ARM EABI / 64-bit). */
const SYSCALLS: Record<string, { socket: number; ioUring: number; socketcall?: number }> = {
  x86_64: { socket: 41, ioUring: 425 },
  i386: { socket: 359, ioUring: 425, socketcall: 102 },
  aarch64: { socket: 198, ioUring: 425 },
  arm: { socket: 281, ioUring: 425 },
};

type Insn = { op: "ld"; off: number } | { op: "jeq" | "jge"; k: number; t: string; f: string } | { op: "ret"; k: number } | { op: "label"; name: string };

/** Assemble: labels become relative jump offsets (each must fit in a byte). */
function assemble(prog: Insn[]): Buffer {
  const real = prog.filter((i) => i.op !== "label");
  const at = new Map<string, number>();
  let n = 0;
  for (const i of prog) {
    if (i.op === "label") at.set(i.name, n);
    else n++;
  }
  const buf = Buffer.alloc(real.length * 8);
  real.forEach((i, idx) => {
    let code = 0;
    let jt = 0;
    let jf = 0;
    let k = 0;
    if (i.op === "ld") (code = 0x20), (k = i.off); // BPF_LD | BPF_W | BPF_ABS
    else if (i.op === "ret") (code = 0x06), (k = i.k); // BPF_RET | BPF_K
    else if (i.op === "jeq" || i.op === "jge") {
      code = i.op === "jeq" ? 0x15 : 0x35; // BPF_JMP | BPF_JEQ/BPF_JGE | BPF_K
      k = i.k;
      const rel = (name: string) => {
        const target = at.get(name);
        if (target === undefined) throw new Error(`seccomp: unknown label ${name}`);
        const off = target - idx - 1;
        if (off < 0 || off > 255) throw new Error(`seccomp: jump to ${name} out of range`);
        return off;
      };
      jt = rel(i.t);
      jf = rel(i.f);
    }
    buf.writeUInt16LE(code, idx * 8);
    buf.writeUInt8(jt, idx * 8 + 2);
    buf.writeUInt8(jf, idx * 8 + 3);
    buf.writeUInt32LE(k >>> 0, idx * 8 + 4);
  });
  return buf;
}

/** The per-ABI part: load nr, refuse io_uring, send socket (and socketcall) to the family check. */
function abi(label: string, nr: { socket: number; ioUring: number; socketcall?: number }, x32Guard: boolean): Insn[] {
  const out: Insn[] = [{ op: "label", name: label }, { op: "ld", off: OFF_NR }];
  if (x32Guard) out.push({ op: "jge", k: 0x40000000, t: "deny", f: `${label}.1` }, { op: "label", name: `${label}.1` });
  out.push({ op: "jeq", k: nr.ioUring, t: "nosys", f: `${label}.2` }, { op: "label", name: `${label}.2` });
  if (nr.socketcall !== undefined) {
    out.push({ op: "jeq", k: nr.socket, t: "family", f: `${label}.3` }, { op: "label", name: `${label}.3` });
    // socketcall(call, args*): call 1 is SYS_SOCKET; its family sits in user memory, so refuse the call.
    out.push({ op: "jeq", k: nr.socketcall, t: "family", f: "allow" });
  } else {
    out.push({ op: "jeq", k: nr.socket, t: "family", f: "allow" });
  }
  return out;
}

export type SeccompResult = { ok: true; program: Buffer } | { ok: false; cause: string };

/** The filter for this host's architecture (Node's `process.arch` naming). */
export function unixSocketFilter(arch: string = process.arch): SeccompResult {
  let native: [string, number, boolean];
  let compat: [string, number];
  if (arch === "x64") (native = ["x86_64", AUDIT_ARCH.X86_64, true]), (compat = ["i386", AUDIT_ARCH.I386]);
  else if (arch === "arm64") (native = ["aarch64", AUDIT_ARCH.AARCH64, false]), (compat = ["arm", AUDIT_ARCH.ARM]);
  else return { ok: false, cause: `Reasonix has no unix-socket filter for the ${arch} architecture` };
  const prog: Insn[] = [
    { op: "ld", off: OFF_ARCH },
    { op: "jeq", k: native[1], t: native[0], f: "a2" },
    { op: "label", name: "a2" },
    { op: "jeq", k: compat[1], t: compat[0], f: "kill" },
    ...abi(native[0], SYSCALLS[native[0]]!, native[2]),
    ...abi(compat[0], SYSCALLS[compat[0]]!, false),
    // socket(): arg0 is the family; socketcall(): arg0 is the call, SYS_SOCKET = 1 = AF_UNIX.
    { op: "label", name: "family" },
    { op: "ld", off: OFF_ARG0 },
    { op: "jeq", k: AF_UNIX, t: "deny", f: "allow" },
    { op: "label", name: "allow" },
    { op: "ret", k: RET_ALLOW },
    { op: "label", name: "deny" },
    { op: "ret", k: RET_ERRNO | EACCES },
    { op: "label", name: "nosys" },
    { op: "ret", k: RET_ERRNO | ENOSYS },
    { op: "label", name: "kill" },
    { op: "ret", k: RET_KILL_PROCESS },
  ];
  return { ok: true, program: assemble(prog) };
}
