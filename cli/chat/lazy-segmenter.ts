// pi-tui builds its grapheme segmenters (`new Intl.Segmenter`) when its
// modules load. Building one loads ICU's break data: ~3 ms of CPU before the
// chat's first frame, which (an empty editor) segments nothing. While `load`
// runs, `new Intl.Segmenter` gives a stand-in that builds the real segmenter
// on first use; the global is restored right after.

type SegmenterArgs = ConstructorParameters<typeof Intl.Segmenter>;

export async function withLazySegmenter<T>(load: () => Promise<T>): Promise<T> {
  const Real = Intl.Segmenter;
  class LazySegmenter {
    #args: SegmenterArgs;
    #real: Intl.Segmenter | undefined;
    constructor(...args: SegmenterArgs) {
      this.#args = args;
    }
    #get(): Intl.Segmenter {
      return (this.#real ??= new Real(...this.#args));
    }
    segment(input: string): Intl.Segments {
      return this.#get().segment(input);
    }
    resolvedOptions(): Intl.ResolvedSegmenterOptions {
      return this.#get().resolvedOptions();
    }
  }
  // Typed read-only, but a writable property of Intl at run time.
  const intl = Intl as { Segmenter: typeof Intl.Segmenter };
  intl.Segmenter = LazySegmenter as unknown as typeof Intl.Segmenter;
  try {
    return await load();
  } finally {
    intl.Segmenter = Real;
  }
}
