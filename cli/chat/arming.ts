// When a card in the live region (an approval, the model's question) may take
// answer keys: it has been on screen for ARM_MS and the user has paused typing
// for as long. Typing anything the card does not take restarts the pause; a
// redraw is asked for when the card arms, so its hint can say it takes keys.

/** A card ignores answer keys until it has been visible this long, and until the user paused typing this long. */
export const ARM_MS = 600;
/** A card key followed by another key within this window was text, not an answer. */
export const BURST_MS = 250;

/** Keys every card reads the same way. */
export const ENTER = ["\r", "\n"];
export const DIGIT = /^[1-9]$/;

export class Arming {
  private id: string | undefined;
  private shownAt = 0;
  private lastKeyAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly redraw: () => void,
    private readonly now: () => number,
  ) {}

  /** Follow the card now shown (its id); true when it is another one (it starts unarmed). */
  follow(id: string | undefined): boolean {
    if (id === this.id) return false;
    this.id = id;
    this.shownAt = this.now();
    if (id !== undefined) this.rearm();
    return true;
  }

  /** The id of the card followed. */
  get current(): string | undefined {
    return this.id;
  }

  armed(): boolean {
    const t = this.now();
    return this.id !== undefined && t - this.shownAt >= ARM_MS && t - this.lastKeyAt >= ARM_MS;
  }

  /** A key that was text (or an Enter on an empty input before arming): the pause starts again. */
  typed(): void {
    this.lastKeyAt = this.now();
    this.rearm();
  }

  private rearm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.redraw(), ARM_MS + 20);
  }
}

/**
 * What the approval prompt and the question card share: the card they follow
 * (the head of its queue), its arming, and a card key held for BURST_MS (it
 * answers unless another key follows at once: then it was text).
 */
export abstract class ArmedCard<T extends { callId: string }, C> {
  protected readonly arming: Arming;
  protected held: { key: string; timer: ReturnType<typeof setTimeout> } | undefined;

  constructor(
    protected readonly redraw: () => void,
    now: () => number = Date.now,
  ) {
    this.arming = new Arming(redraw, now);
  }

  /** Follow the head of the queue; a new card starts unarmed with nothing selected (reset). */
  sync(card: T | undefined): void {
    if (!this.arming.follow(card?.callId)) return;
    if (this.held) clearTimeout(this.held.timer);
    this.held = undefined;
    this.reset();
  }

  /** Answer keys count now (the composer must also be empty). */
  armed(): boolean {
    return this.arming.armed();
  }

  /** Handle one key while CARD is pending; false: not for the card (the caller goes on as usual). */
  key(data: string, card: T, ctx: C): boolean {
    this.sync(card);
    const taken = this.take(data, card, ctx, this.armed());
    // Typing (anything the card did not take) restarts the pause the card waits for.
    if (!taken) this.arming.typed();
    return taken;
  }

  /**
   * Before arming, or while the composer holds text, a key is not the card's
   * (false) — except an Enter on an empty composer: nothing to send and nothing
   * to answer, so it is taken and counts as typing. Undefined: the card reads
   * the key itself.
   */
  protected notYet(data: string, composerEmpty: boolean, wasArmed: boolean): boolean | undefined {
    if (composerEmpty && wasArmed) return undefined;
    if (ENTER.includes(data) && composerEmpty) {
      this.arming.typed();
      return true;
    }
    return false;
  }

  /** A new card: its own state starts over. */
  protected abstract reset(): void;

  /** One key for CARD; WASARMED: whether it was armed before the key. */
  protected abstract take(data: string, card: T, ctx: C, wasArmed: boolean): boolean;
}
