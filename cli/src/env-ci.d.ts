// env-ci 11 ships no types: the part of its API the SDK uses.
declare module 'env-ci' {
  export interface EnvCiOptions {
    env?: Record<string, string | undefined>;
    cwd?: string;
  }
  export interface EnvCiResult {
    isCi: boolean;
    /** Human name, e.g. `GitHub Actions`. */
    name?: string;
    /** Short id, e.g. `github`, `gitlab`, `circleci`. */
    service?: string;
    commit?: string;
    tag?: string;
    build?: string;
    buildUrl?: string;
    job?: string;
    jobUrl?: string;
    isPr?: boolean;
    pr?: string | number;
    /** The branch built; for a pull request, its target branch. */
    branch?: string;
    /** For a pull request, its source branch. */
    prBranch?: string;
    slug?: string;
    root?: string;
  }
  export default function envCi(options?: EnvCiOptions): EnvCiResult;
}
