/** What the benchmark's fake upstream answers (shared by the fake and the checks of run.ts). */

/** Content chunks per streamed answer (BENCH_CHUNKS, default 20). */
export const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 20);
/** One word per content chunk: `Word0`, ` word1`, ... */
export const WORDS: readonly string[] = Array.from({ length: CHUNKS }, (_, i) => (i === 0 ? 'Word0' : ` word${i}`));
/** The whole answer text. */
export const TEXT = WORDS.join('');
