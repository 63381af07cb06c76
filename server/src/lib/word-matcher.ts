/**
 * A multi-pattern matcher (Aho–Corasick): one pass over the text finds every occurrence of every
 * word, in time linear in the text (plus the matches), whatever the number of words. It serves the
 * sensitive words (case-insensitive where lower-casing keeps a character one UTF-16 unit, so
 * positions stay those of the text) and a client's stop sequences (exact, read piece by piece
 * through a cursor).
 */
export interface WordMatch {
  start: number;
  end: number;
  word: string;
}

/** A text read piece by piece: the state carries over a piece's end. */
export interface WordCursor {
  /**
   * Reads `text` on from where the last call ended. Returns the first word to complete in it (the
   * longest when several end on one character) with `end` the index in `text` just past it (it may
   * have begun in an earlier piece), or null. After a match the cursor starts afresh.
   */
  feed(text: string): { word: string; end: number } | null;
  /** How many units at the end of what was read could still begin a word. */
  readonly pending: number;
  /** Forgets what was read. */
  reset(): void;
}

interface Node {
  next: Map<number, number>;
  fail: number;
  /** The node's distance from the root (the length of the text it stands for). */
  depth: number;
  /** The word ending here (its length in units), or 0. */
  length: number;
  word: string;
  /** The nearest node on the fail chain that ends a word (dictionary link), or -1. */
  output: number;
}

const fold = (code: number): number => {
  if (code >= 65 && code <= 90) return code + 32;
  if (code < 128) return code;
  const lower = String.fromCharCode(code).toLowerCase();
  return lower.length === 1 ? lower.charCodeAt(0) : code;
};
const exact = (code: number): number => code;
const node = (depth: number): Node => ({ next: new Map(), fail: 0, depth, length: 0, word: '', output: -1 });

export class WordMatcher {
  private readonly nodes: Node[] = [node(0)];
  private readonly unit: (code: number) => number;
  /** The longest word's length: a stream holds back one unit less than this. */
  readonly maxLength: number;

  constructor(words: readonly string[], options: { foldCase?: boolean } = {}) {
    this.unit = options.foldCase === false ? exact : fold;
    let longest = 0;
    for (const word of words) {
      if (word.length === 0) continue;
      let at = 0;
      for (let i = 0; i < word.length; i += 1) {
        const code = this.unit(word.charCodeAt(i));
        let next = this.nodes[at]!.next.get(code);
        if (next === undefined) {
          next = this.nodes.length;
          this.nodes.push(node(i + 1));
          this.nodes[at]!.next.set(code, next);
        }
        at = next;
      }
      this.nodes[at]!.length = word.length;
      this.nodes[at]!.word = word;
      longest = Math.max(longest, word.length);
    }
    this.maxLength = longest;
    // Breadth-first: fail links, and dictionary links to the nearest word on the fail chain.
    const queue: number[] = [];
    for (const child of this.nodes[0]!.next.values()) queue.push(child);
    for (let head = 0; head < queue.length; head += 1) {
      const at = queue[head]!;
      const current = this.nodes[at]!;
      const fail = this.nodes[current.fail]!;
      current.output = fail.length > 0 ? current.fail : fail.output;
      for (const [code, child] of current.next) {
        let state = current.fail;
        while (state !== 0 && !this.nodes[state]!.next.has(code)) state = this.nodes[state]!.fail;
        const target = this.nodes[state]!.next.get(code);
        this.nodes[child]!.fail = target !== undefined && target !== child ? target : 0;
        queue.push(child);
      }
    }
  }

  get isEmpty(): boolean {
    return this.maxLength === 0;
  }

  /** The state after reading one more unit. */
  private step(state: number, code: number): number {
    let at = state;
    let next = this.nodes[at]!.next.get(code);
    while (next === undefined && at !== 0) {
      at = this.nodes[at]!.fail;
      next = this.nodes[at]!.next.get(code);
    }
    return next ?? 0;
  }

  /** The node of the longest word ending at `state`, or a value ≤ 0. */
  private firstOutput(state: number): number {
    return this.nodes[state]!.length > 0 ? state : this.nodes[state]!.output;
  }

  /** Every occurrence, in order of where it ends. */
  matches(text: string): WordMatch[] {
    const found: WordMatch[] = [];
    if (this.isEmpty) return found;
    let state = 0;
    for (let i = 0; i < text.length; i += 1) {
      state = this.step(state, this.unit(text.charCodeAt(i)));
      for (let out = this.firstOutput(state); out > 0; out = this.nodes[out]!.output) {
        const match = this.nodes[out]!;
        found.push({ start: i + 1 - match.length, end: i + 1, word: match.word });
      }
    }
    return found;
  }

  /** A cursor for a text that arrives in pieces (a stream). */
  cursor(): WordCursor {
    const nodes = this.nodes;
    let state = 0;
    return {
      feed: (text) => {
        if (this.isEmpty) return null;
        for (let i = 0; i < text.length; i += 1) {
          state = this.step(state, this.unit(text.charCodeAt(i)));
          const out = this.firstOutput(state);
          if (out > 0) {
            state = 0;
            return { word: this.nodes[out]!.word, end: i + 1 };
          }
        }
        return null;
      },
      get pending() {
        return nodes[state]!.depth;
      },
      reset: () => {
        state = 0;
      },
    };
  }
}
