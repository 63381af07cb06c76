/**
 * How long a model's answers run, per model on this instance: an exponentially weighted mean of the
 * completion tokens of its settled calls (chat and completions). The hold policy holds this, with a
 * margin, as a request's likely output (hold-policy.ts); a model not yet seen holds the
 * `HoldOutputTokens` setting.
 */
export class OutputEstimates {
  private readonly means = new Map<string, number>();

  /** Likely output tokens of the model's next answer: 1.5 × the running mean, or `seed` before any answer. */
  likely(model: string, seed: number): number {
    const mean = this.means.get(model);
    return mean === undefined ? seed : Math.max(1, Math.ceil(mean * 1.5));
  }

  /** Counts one settled answer (an answer the gateway cut short to the balance is not typical and is left out). */
  observe(model: string, completionTokens: number): void {
    if (!Number.isFinite(completionTokens) || completionTokens < 0) return;
    const mean = this.means.get(model);
    if (mean === undefined && this.means.size >= maxModels) this.means.clear(); // model names come from clients
    this.means.set(model, mean === undefined ? completionTokens : mean + weight * (completionTokens - mean));
  }
}

/** Weight of the newest answer in the mean: about the last ten answers count. */
const weight = 0.2;
const maxModels = 4096;
