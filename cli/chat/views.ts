// Ctrl-O and Ctrl-T: what a card or a reasoning line folds away. Ctrl-O
// prints the newest collapsed item in full into the scrollback, and each
// further Ctrl-O the one before it; Ctrl-T opens the whole transcript in a
// scrollable view (pager.ts). Both read the folded transcript.
import { matchesKey } from "@mariozechner/pi-tui";
import type { Block } from "../../core/protocol/fold.ts";
import { callSummary, type Paint } from "./cards.ts";
import { fullText, Pager, toolCard, transcriptLines } from "./pager.ts";
import type { Transcript } from "./transcript.ts";

type Draw = (width: number, height: number) => string[];

const expandable = (b: Block): boolean => (b.kind === "tool" ? !!(b.output?.trim() || b.diff?.length) : b.kind === "answer" && !!b.reasoning.trim());

export class Views {
  private pager: Pager | undefined;
  /** After Ctrl-O: the index (among expandable blocks) of the item it showed; -1 once another key came. */
  private back = -1;

  constructor(
    private readonly p: Paint,
    private readonly transcript: Transcript,
    private readonly width: () => number,
    private readonly rows: () => number,
    private readonly commit: (lines: string[]) => void,
    /** Show `draw` instead of the chat (undefined: the chat again). */
    private readonly overlay: (draw: Draw | undefined) => void,
  ) {}

  /** Handle a key if it is one of these views'; true when it was taken. */
  key(data: string, approvalPending: boolean): boolean {
    if (this.pager) {
      if (this.pager.key(data, this.rows() - 1)) {
        this.pager = undefined;
        this.overlay(undefined);
      } else this.show(this.pager);
      return true;
    }
    if (matchesKey(data, "ctrl+t")) {
      this.back = -1;
      const t = this.transcript.t;
      const version = () => {
        const b = t.blocks.at(-1);
        return `${t.blocks.length}:${b?.kind === "answer" ? b.text.length : b?.kind === "tool" ? b.status : ""}`;
      };
      const pager = new Pager(this.p, "transcript", (w) => transcriptLines(this.p, t, w), version);
      this.pager = pager;
      this.show(pager);
      return true;
    }
    if (matchesKey(data, "ctrl+o") && !approvalPending) {
      this.expand();
      return true;
    }
    this.back = -1;
    return false;
  }

  private show(pager: Pager): void {
    // The chat is hidden: say when an approval waits there.
    this.overlay((w, h) => pager.render(w, h, this.transcript.approvals.length ? "· an approval waits: q goes back to it" : undefined));
  }

  /** The next older collapsed item, whole, into the scrollback. */
  private expand(): void {
    const items = this.transcript.t.blocks.filter(expandable);
    if (!items.length) return this.commit([this.p.dim("(nothing folded to show: no tool output or reasoning yet)")]);
    const i = (this.back <= 0 ? items.length : this.back) - 1;
    this.back = i;
    const b = items[i]!;
    const w = this.width();
    const where = `${items.length - i} of ${items.length} from the newest${i > 0 ? " · Ctrl-O again: the one before" : ""} · Ctrl-T: the whole transcript`;
    if (b.kind === "tool") {
      const [card, ...rest] = toolCard(this.p, b, w);
      this.commit([this.p.dim(`── ${b.name} ${callSummary(b.name, b.input)}`.slice(0, w)), this.p.dim(`   ${where}`), card!, ...rest]);
    } else if (b.kind === "answer") this.commit([this.p.dim("── reasoning"), this.p.dim(`   ${where}`), ...fullText(this.p, b.reasoning.trim(), w)]);
  }
}
