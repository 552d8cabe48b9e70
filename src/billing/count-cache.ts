/**
 * Recent worst-case token counts by text, least recently used first out, bounded by the total
 * length of the texts it keeps. A conversation sends its system prompt, tool definitions and
 * history again with every turn, so keys with a budget or tpm counted the same texts with the
 * BPE tokenizer over and over (~15 µs for a 200-character prompt, growing with the history);
 * a hit costs one Map lookup (the string's hash).
 */
export class CountCache {
  private readonly counts = new Map<string, number>();
  private chars = 0;

  /** `maxChars`: total length of the texts kept; `minChars`: shorter texts are not kept (cheap to count). */
  constructor(private readonly maxChars: number, private readonly minChars: number) {}

  get(text: string): number | undefined {
    const n = this.counts.get(text);
    if (n !== undefined) {
      // Most recently used last: Map keeps insertion order.
      this.counts.delete(text);
      this.counts.set(text, n);
    }
    return n;
  }

  set(text: string, count: number): void {
    if (text.length < this.minChars || text.length > this.maxChars || this.counts.has(text)) return;
    this.counts.set(text, count);
    this.chars += text.length;
    for (const oldest of this.counts.keys()) {
      if (this.chars <= this.maxChars) break;
      this.chars -= oldest.length;
      this.counts.delete(oldest);
    }
  }

  /** Texts kept. */
  get size(): number {
    return this.counts.size;
  }
}
