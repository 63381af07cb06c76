/**
 * A multi-pattern matcher (Aho–Corasick): one pass over the text finds every occurrence of every
 * word, in time linear in the text (plus the matches), whatever the number of words. Matching is
 * case-insensitive where lower-casing keeps a character one UTF-16 unit (so positions stay those of
 * the text).
 */
export interface WordMatch {
  start: number;
  end: number;
  word: string;
}

interface Node {
  next: Map<number, number>;
  fail: number;
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

export class WordMatcher {
  private readonly nodes: Node[] = [{ next: new Map(), fail: 0, length: 0, word: '', output: -1 }];
  /** The longest word's length: a stream holds back one unit less than this. */
  readonly maxLength: number;

  constructor(words: readonly string[]) {
    let longest = 0;
    for (const word of words) {
      if (word.length === 0) continue;
      let at = 0;
      for (let i = 0; i < word.length; i += 1) {
        const code = fold(word.charCodeAt(i));
        let next = this.nodes[at]!.next.get(code);
        if (next === undefined) {
          next = this.nodes.length;
          this.nodes.push({ next: new Map(), fail: 0, length: 0, word: '', output: -1 });
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
      const node = this.nodes[at]!;
      const fail = this.nodes[node.fail]!;
      node.output = fail.length > 0 ? node.fail : fail.output;
      for (const [code, child] of node.next) {
        let state = node.fail;
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

  /** Every occurrence, in order of where it ends. */
  matches(text: string): WordMatch[] {
    const found: WordMatch[] = [];
    if (this.isEmpty) return found;
    let state = 0;
    for (let i = 0; i < text.length; i += 1) {
      const code = fold(text.charCodeAt(i));
      let next = this.nodes[state]!.next.get(code);
      while (next === undefined && state !== 0) {
        state = this.nodes[state]!.fail;
        next = this.nodes[state]!.next.get(code);
      }
      state = next ?? 0;
      for (let out = this.nodes[state]!.length > 0 ? state : this.nodes[state]!.output; out > 0; out = this.nodes[out]!.output) {
        const node = this.nodes[out]!;
        found.push({ start: i + 1 - node.length, end: i + 1, word: node.word });
      }
    }
    return found;
  }
}
