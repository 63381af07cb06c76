import { describe, expect, it } from 'vitest';
import { WordMatcher } from '../../src/lib/word-matcher.js';
import { stopScanner } from '../../src/relay/stream/stop-scanner.js';
import type { Json } from '@modelgate/shared';

/** The first sequence to complete in `text` (the longest of those ending on one character), plainly. */
function firstComplete(text: string, sequences: string[]): { word: string; end: number } | null {
  for (let end = 1; end <= text.length; end += 1) {
    const ending = sequences.filter((sequence) => sequence.length > 0 && text.slice(0, end).endsWith(sequence));
    if (ending.length > 0) return { word: ending.reduce((a, b) => (b.length > a.length ? b : a)), end };
  }
  return null;
}

/** The longest tail of `text` that begins a sequence, plainly. */
function pendingOf(text: string, sequences: string[]): number {
  let keep = 0;
  for (const sequence of sequences)
    for (let n = Math.min(sequence.length - 1, text.length); n > keep; n -= 1)
      if (sequence.startsWith(text.slice(text.length - n))) keep = n;
  return keep;
}

/** A small pseudo-random source, so that a failure can be repeated. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** An exact (case-sensitive) cursor, as the stop scanner uses. */
const cursor = (sequences: string[]) => new WordMatcher(sequences, { foldCase: false }).cursor();

describe('stop sequences searched all at once', () => {
  it('finds the first sequence to complete, the longest when several end together', () => {
    expect(cursor(['abcd', 'bc']).feed('xabcd')).toEqual({ word: 'bc', end: 4 });
    expect(cursor(['he', 'she', 'hers']).feed('ushers')).toEqual({ word: 'she', end: 4 });
    expect(cursor(['aab']).feed('aaaab')).toEqual({ word: 'aab', end: 5 });
    expect(cursor(['x', '', 'x']).feed('abx')).toEqual({ word: 'x', end: 3 });
    expect(cursor(['zz']).feed('abc')).toBeNull();
    expect(cursor(['End']).feed('the end')).toBeNull();
    expect(cursor([]).feed('abc')).toBeNull();
  });

  it('carries a sequence over the end of a piece, and says how much could still begin one', () => {
    const matcher = cursor(['END!', 'ENDS']);
    expect(matcher.feed('the E')).toBeNull();
    expect(matcher.pending).toBe(1);
    expect(matcher.feed('ND')).toBeNull();
    expect(matcher.pending).toBe(3);
    expect(matcher.feed('!')).toEqual({ word: 'END!', end: 1 });
    expect(matcher.pending).toBe(0);
    matcher.feed('EN');
    matcher.reset();
    expect(matcher.feed('D!')).toBeNull();
  });

  it('agrees with a plain search on random texts cut into random pieces', () => {
    const random = seeded(7);
    const alphabet = 'ab€😀';
    const word = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => alphabet[Math.floor(random() * 4)]).join('');
    for (let round = 0; round < 400; round += 1) {
      const sequences = Array.from({ length: 1 + Math.floor(random() * 6) }, () => word(4));
      const text = word(40);
      const expected = firstComplete(text, sequences);
      const matcher = cursor(sequences);
      let read = 0;
      let found: { word: string; end: number } | null = null;
      while (read < text.length && !found) {
        const piece = text.slice(read, read + 1 + Math.floor(random() * 6));
        const hit = matcher.feed(piece);
        if (hit) found = { word: hit.word, end: read + hit.end };
        else expect(matcher.pending).toBe(pendingOf(text.slice(0, read + piece.length), sequences));
        read += piece.length;
      }
      expect(found).toEqual(expected);
    }
  });

  it('cuts a streamed answer at the one of 30,000 sequences that completes first', () => {
    const sequences = Array.from({ length: 30_000 }, (_, i) => `w${i}.`);
    const out: string[] = [];
    const sink = {
      onChunk: (chunk: Json) => {
        out.push(JSON.stringify(chunk));
        return '';
      },
      close: () => '',
    };
    const scanner = stopScanner(sink, sequences, false);
    const chunk = (content: string): Json => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    for (const piece of ['say w', '2999', '9. now', ' and more']) scanner.onChunk(chunk(piece));
    const events = out.map((line) => JSON.parse(line) as { choices: [{ delta: { content?: string }; stop_reason?: string }] });
    expect(events.map((event) => event.choices[0].delta.content ?? '').join('')).toBe('say ');
    expect(events.at(-1)!.choices[0].stop_reason).toBe('w29999.');
    expect(scanner.isComplete).toBe(true);
  });
});
