// Ctrl-O and Ctrl-T: what a card or a reasoning line folds away. Ctrl-O (and
// /verbose) toggles verbose display: on, it prints the newest folded item in
// full into the scrollback, and from then on reasoning and command output are
// shown whole as they arrive; again, they fold to a line. Ctrl-T opens the
// whole transcript (every item, older ones too) in a scrollable view
// (pager.ts). Both read the folded transcript.
import { matchesKey } from "@mariozechner/pi-tui";
import type { Block } from "../../core/protocol/fold.ts";
import { callSummary, type Paint } from "./cards.ts";
import { fullText, Pager, toolCard, transcriptLines } from "./pager.ts";
import type { Transcript } from "./transcript.ts";

type Draw = (width: number, height: number) => string[];

const expandable = (b: Block): boolean => (b.kind === "tool" ? !!(b.output?.trim() || b.diff?.length) : b.kind === "answer" && !!b.reasoning.trim());

export class Views {
  private pager: Pager | undefined;

  constructor(
    private readonly p: Paint,
    private readonly transcript: Transcript,
    private readonly width: () => number,
    private readonly rows: () => number,
    private readonly commit: (lines: string[]) => void,
    /** Show `draw` instead of the chat (undefined: the chat again). */
    private readonly overlay: (draw: Draw | undefined) => void,
  ) {}

  /**
   * Handle a key if it is one of these views'; true when it was taken.
   * PageUp and Ctrl+Home (unless the composer holds several lines, which they
   * page through) open the transcript view a page up or at its top: the chat
   * cannot scroll the terminal's own scrollback, which Shift+PageUp does in most terminals.
   */
  key(data: string, approvalPending: boolean, composerMultiline = false): boolean {
    if (this.pager) {
      if (this.pager.key(data, this.rows() - 1)) {
        this.pager = undefined;
        this.overlay(undefined);
      } else this.show(this.pager);
      return true;
    }
    const scroll = !approvalPending && ((matchesKey(data, "pageUp") && !composerMultiline) || matchesKey(data, "ctrl+home"));
    if (matchesKey(data, "ctrl+t") || scroll) {
      const t = this.transcript.t;
      const version = () => {
        const b = t.blocks.at(-1);
        return `${t.blocks.length}:${b?.kind === "answer" ? b.text.length : b?.kind === "tool" ? b.status : ""}`;
      };
      const pager = new Pager(this.p, "transcript", (w) => transcriptLines(this.p, t, w), version);
      this.pager = pager;
      if (scroll) {
        // Laid out once so the key knows how far the rows go.
        pager.render(this.width(), this.rows());
        pager.key(data, this.rows() - 1);
      }
      this.show(pager);
      return true;
    }
    if (matchesKey(data, "ctrl+o") && !approvalPending) {
      this.toggleVerbose();
      return true;
    }
    return false;
  }

  /** Verbose display on (the newest folded item printed whole at once) or off; the new state. */
  toggleVerbose(): boolean {
    const on = (this.transcript.verbose = !this.transcript.verbose);
    if (on) this.expandNewest();
    this.commit([this.p.dim(on ? "verbose on: reasoning and command output in full from here on (Ctrl-O or /verbose folds them again)" : "verbose off: reasoning and long output fold to a line (Ctrl-T shows the whole transcript)")]);
    return on;
  }

  private show(pager: Pager): void {
    // The chat is hidden: say when an approval waits there.
    this.overlay((w, h) => pager.render(w, h, this.transcript.approvals.length ? "· an approval waits: q goes back to it" : undefined));
  }

  /** The newest collapsed item, whole, into the scrollback. */
  private expandNewest(): void {
    const b = this.transcript.t.blocks.filter(expandable).at(-1);
    if (!b) return;
    const w = this.width();
    if (b.kind === "tool") {
      const [card, ...rest] = toolCard(this.p, b, w);
      this.commit([this.p.dim(`── ${b.name} ${callSummary(b.name, b.input)}`.slice(0, w)), card!, ...rest]);
    } else if (b.kind === "answer") this.commit([this.p.dim("── reasoning"), ...fullText(this.p, b.reasoning.trim(), w)]);
  }
}
