/**
 * Static analysis of a bash command line for the permission layer.
 *
 * This is deliberately a *recogniser*, not a general shell parser: it accepts
 * a small, fully understood subset (simple commands made of literal words,
 * joined by `;`, `&&`, `||`, `|`, `|&`, `&` or newlines) and tags everything
 * else with a hazard. A command with any hazard can never be covered by a
 * prefix, glob or bare `Bash` allow rule; only an exact literal rule for the
 * whole text (or a human) can approve it. Anything the recogniser does not
 * understand becomes "unparseable", which is the strictest tier, so a gap in
 * this file errs on the side of prompting.
 *
 * Semantics follow `bash -c` (non-interactive: no aliases, no history
 * expansion), which is how the bash tool runs commands.
 */
import { isNestedHazard, type BashAnalysis, type BashCommand, type BashHazard } from "./bash-hazards.ts";
import { F_COMPLEX, F_EXPANSION, F_GLOB, F_QUOTED, F_SUBST, F_TILDE, Lexer, Unparseable, type Tok, type WordTok } from "./bash-lexer.ts";
import { ASSIGN_RE, RESERVED, classifyArgv } from "./bash-commands.ts";

export { isNestedHazard, type BashAnalysis, type BashCommand, type BashHazard } from "./bash-hazards.ts";

/** Harmless redirections: fd duplication/closing and /dev/null. */
function harmlessRedirect(op: string, target: WordTok | undefined): boolean {
  if (!target) return false;
  const bare = op.replace(/^[0-9]+/, "");
  if ((bare === ">&" || bare === "<&") && target.flags === 0 && /^([0-9]+-?|-)$/.test(target.value)) return true;
  return target.flags === 0 && target.value === "/dev/null" && [">", ">>", "&>", "&>>", ">|", "<"].includes(bare);
}

function segmentToCommand(toks: Tok[], text: string, line: BashAnalysis, classify: boolean): BashCommand {
  const hazards: BashHazard[] = [];
  const add = (h: BashHazard) => { if (!hazards.includes(h)) hazards.push(h); };
  const words: WordTok[] = [];
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.t === "redir") {
      if (t.heredoc) {
        add("heredoc");
        if (t.heredoc.subst) add("substitution");
        continue;
      }
      const target = toks[k + 1];
      if (!target || target.t !== "word") throw new Unparseable(`redirection ${t.op} without a target`);
      k++;
      if (t.op.endsWith("<<<")) { add("heredoc"); }
      else if (!harmlessRedirect(t.op, target)) add("redirect");
      if (target.flags & F_SUBST) add("substitution");
      else if (target.flags & (F_EXPANSION | F_TILDE | F_GLOB)) add("expansion");
      continue;
    }
    if (t.t === "word") words.push(t);
  }
  // Leading assignments (only unquoted NAME= counts, as in bash).
  let w0 = 0;
  // Line continuations vanish before bash tokenizes: `X\<newline>=1 rm` assigns X.
  while (w0 < words.length && ASSIGN_RE.test(words[w0]!.raw.replace(/\\\n/g, ""))) {
    add("assignment");
    if (words[w0]!.flags & F_SUBST) add("substitution");
    w0++;
  }
  const cmdWords = words.slice(w0);
  const argv = cmdWords.map((w) => w.value);
  if (cmdWords.length > 0) {
    const first = cmdWords[0]!;
    if ((first.flags & F_QUOTED) === 0 && RESERVED.has(first.value)) throw new Unparseable(`compound command (${first.value})`);
    if (first.flags & (F_EXPANSION | F_SUBST | F_GLOB | F_TILDE)) add("dynamic-name");
  }
  for (const w of cmdWords) {
    if (w.flags & F_SUBST) add("substitution");
    if (w.flags & F_COMPLEX) add("substitution");
    if (w.flags & (F_EXPANSION | F_TILDE)) add("expansion");
    if (w.flags & F_GLOB) add("glob");
  }
  const c = classify ? classifyArgv(argv) : { hazards: [], inner: [], nestedSources: [] };
  for (const h of c.hazards) add(h);
  line.nestedSources.push(...c.nestedSources);
  return { argv, text: text.trim(), hazards, inner: c.inner };
}

/**
 * Analyse a bash command line. Never throws. With `lexicalOnly`, commands are
 * split and unquoted but not classified (for reading rule patterns).
 */
export function analyzeBash(text: string, opts: { lexicalOnly?: boolean } = {}): BashAnalysis {
  const res: BashAnalysis = { text, commands: [], hazards: [], nested: false, nestedSources: [] };
  try {
    const lx = new Lexer(text);
    const toks = lx.run();
    res.nestedSources.push(...lx.nestedSources);
    let seg: Tok[] = [];
    let prevOp: string | null = "start";
    const flush = (op: string | null) => {
      if (seg.length === 0) {
        // Empty parts are fine after `;`, `&` and newlines (trailing or blank lines), nowhere else.
        if (op === "\n" && (prevOp === "start" || prevOp === "\n" || prevOp === ";" || prevOp === "&")) return;
        if (op === null && prevOp !== "&&" && prevOp !== "||" && prevOp !== "|" && prevOp !== "|&") return;
        throw new Unparseable(`empty command before ${op === null ? "end of input" : JSON.stringify(op)}`);
      }
      const start = seg[0]!.start;
      const end = seg[seg.length - 1]!.end;
      res.commands.push(segmentToCommand(seg, text.slice(start, end), res, !opts.lexicalOnly));
      seg = [];
    };
    for (const t of toks) {
      // A newline right after `&&`, `||` or `|` continues the list.
      if (t.t === "op" && t.op === "\n" && seg.length === 0 && (prevOp === "&&" || prevOp === "||" || prevOp === "|" || prevOp === "|&")) continue;
      if (t.t === "op") {
        flush(t.op);
        prevOp = t.op;
      } else {
        seg.push(t);
      }
    }
    flush(null);
    if (res.commands.length === 0) throw new Unparseable("empty command");
  } catch (e) {
    if (!(e instanceof Unparseable)) throw e;
    res.error = e.message;
    res.hazards.push("unparseable");
  }
  for (const c of res.commands) for (const h of c.hazards) if (!res.hazards.includes(h)) res.hazards.push(h);
  res.nested = res.hazards.some(isNestedHazard);
  return res;
}

/** Split a rule's command text into words; null when it is not a plain literal command. */
export function literalWords(text: string): string[] | null {
  const a = analyzeBash(text, { lexicalOnly: true });
  if (a.hazards.length > 0 || a.commands.length !== 1) return null;
  return a.commands[0]!.argv;
}
