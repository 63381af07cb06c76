import { RelayError } from '../errors.js';
import type { AdapterOptions } from '../providers/types.js';
import { WordMatcher, type WordMatch } from '../../lib/word-matcher.js';

/** What a matched word becomes in a completion (as new-api masks it). */
export const sensitiveMask = '**###**';

/**
 * The sensitive-word settings of the moment (CheckSensitiveEnabled, CheckSensitiveOnPromptEnabled,
 * CheckSensitiveOnCompletionEnabled, StopOnSensitiveEnabled, SensitiveWords: one word per line).
 */
export interface SensitiveGuard {
  matcher: WordMatcher;
  checksPrompt: boolean;
  checksCompletion: boolean;
  /** Stop the answer at the first word (finish_reason content_filter) instead of masking it. */
  stops: boolean;
}

let built: { words: string; matcher: WordMatcher } | null = null;

/** The matcher of a SensitiveWords value, rebuilt only when the value changes. */
function matcherOf(words: string): WordMatcher {
  if (built?.words !== words)
    built = {
      words,
      matcher: new WordMatcher(
        words
          .split(/\r?\n/)
          .map((word) => word.trim())
          .filter((word) => word !== ''),
      ),
    };
  return built.matcher;
}

/** The guard when sensitive words are checked and there are some; null otherwise (the common, free case). */
export function sensitiveGuard(options: AdapterOptions): SensitiveGuard | null {
  if (!options.bool('CheckSensitiveEnabled')) return null;
  const matcher = matcherOf(options.get('SensitiveWords'));
  if (matcher.isEmpty) return null;
  const checksPrompt = options.bool('CheckSensitiveOnPromptEnabled');
  const checksCompletion = options.bool('CheckSensitiveOnCompletionEnabled');
  if (!checksPrompt && !checksCompletion) return null;
  return { matcher, checksPrompt, checksCompletion, stops: options.bool('StopOnSensitiveEnabled') };
}

/** A prompt with sensitive words is refused before any upstream call (nothing is billed). */
export function checkPrompt(guard: SensitiveGuard | null, text: () => string): void {
  if (!guard?.checksPrompt) return;
  const words = [...new Set(guard.matcher.matches(text()).map((match) => match.word))];
  if (words.length > 0)
    throw new RelayError(
      400,
      'sensitive_words_detected',
      `输入包含敏感词：${words.slice(0, 10).join('、')}`,
      false,
      'invalid_request_error',
    );
}

/** Merged, ordered ranges of the matches (overlapping words are masked as one). */
export function rangesOf(matches: readonly WordMatch[]): Array<[number, number]> {
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  const ranges: Array<[number, number]> = [];
  for (const { start, end } of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else ranges.push([start, end]);
  }
  return ranges;
}

/** The text with each range masked. */
export function masked(text: string, ranges: ReadonlyArray<[number, number]>): string {
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start) + sensitiveMask;
    at = end;
  }
  return out + text.slice(at);
}
