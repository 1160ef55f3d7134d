// A benchmark sends one key's requests far past the default rate limit (6,000 a minute), so its
// servers raise the limit out of reach: every request is still counted, and what counting
// costs is in every figure, but none is refused. bench:deploys measures that cost.
export const BENCH_RATE_LIMIT = '1000000000';
