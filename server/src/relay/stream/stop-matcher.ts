/**
 * All of a request's stop sequences searched for at once (Aho–Corasick over UTF-16 code units), as a
 * text arrives piece by piece. The time per piece is the piece's length whatever the number of
 * sequences (a search per sequence costs their count on every piece: 50,000 short ones took 0.2 s of
 * one answer), and the state carries over a piece's end, so a sequence split across pieces is found
 * without searching the held text again.
 */
export interface StopMatcher {
  /**
   * Reads `text` on from where the last call ended. Returns the first sequence to complete in it
   * (the longest one when several end on the same character) and the index in `text` just past it
   * (it may have begun in an earlier piece), or null; after a match the matcher starts afresh.
   */
  feed(text: string): { sequence: string; end: number } | null;
  /** How many characters at the end of what was read could still begin a sequence. */
  readonly pending: number;
  /** Forgets what was read (the text was cut off by something else: a tool call, the end). */
  reset(): void;
}

export function stopMatcher(sequences: readonly string[]): StopMatcher {
  const patterns = [...new Set(sequences.filter((sequence) => sequence.length > 0))];
  const size = patterns.reduce((total, pattern) => total + pattern.length, 1);
  // Edges in one map keyed by node × 65,536 + code unit (below 2^53 for any node count a body holds).
  const edges = new Map<number, number>();
  const parent = new Int32Array(size);
  const code = new Uint16Array(size);
  const depth = new Int32Array(size);
  const fail = new Int32Array(size);
  /** The longest pattern ending at a node (its own, or through its failure links), or −1. */
  const output = new Int32Array(size).fill(-1);
  let nodes = 1;
  patterns.forEach((pattern, index) => {
    let node = 0;
    for (let i = 0; i < pattern.length; i += 1) {
      const key = node * 65536 + pattern.charCodeAt(i);
      let next = edges.get(key);
      if (next === undefined) {
        next = nodes++;
        edges.set(key, next);
        parent[next] = node;
        code[next] = pattern.charCodeAt(i);
        depth[next] = depth[node]! + 1;
      }
      node = next;
    }
    output[node] = index;
  });
  const step = (from: number, unit: number): number => {
    let node = from;
    for (;;) {
      const next = edges.get(node * 65536 + unit);
      if (next !== undefined) return next;
      if (node === 0) return 0;
      node = fail[node]!;
    }
  };
  // Failure links in order of depth (a node's parent, and every shorter suffix, come first).
  for (const node of byDepth(depth, nodes)) {
    const from = parent[node]!;
    fail[node] = from === 0 ? 0 : step(fail[from]!, code[node]!);
    if (output[node] === -1) output[node] = output[fail[node]!]!;
  }

  let state = 0;
  return {
    feed(text) {
      for (let i = 0; i < text.length; i += 1) {
        state = step(state, text.charCodeAt(i));
        const found = output[state]!;
        if (found >= 0) {
          state = 0;
          return { sequence: patterns[found]!, end: i + 1 };
        }
      }
      return null;
    },
    get pending() {
      return depth[state]!;
    },
    reset() {
      state = 0;
    },
  };
}

/** Nodes 1…count−1 in order of depth (a counting sort: depths are at most the longest sequence). */
function byDepth(depth: Int32Array, count: number): Int32Array {
  let deepest = 0;
  for (let node = 1; node < count; node += 1) deepest = Math.max(deepest, depth[node]!);
  const starts = new Int32Array(deepest + 2);
  for (let node = 1; node < count; node += 1) starts[depth[node]! + 1]! += 1;
  for (let d = 1; d <= deepest + 1; d += 1) starts[d]! += starts[d - 1]!;
  const order = new Int32Array(count - 1);
  for (let node = 1; node < count; node += 1) {
    const d = depth[node]!;
    order[starts[d]!] = node;
    starts[d]! += 1;
  }
  return order;
}
