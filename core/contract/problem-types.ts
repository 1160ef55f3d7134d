import { loadDocument, type Schemas } from './document.ts';

// The problem types of docs/api.md#error-codes, read from the document: spec/common/errors.tsp
// declares each code once (enum ProblemCode: what it means, its title, its status, what to do
// next) and scripts/generate.mjs writes them into the schema as one `const` per code. The
// /problems/<code> pages and the docs' table both come from there.

export type ProblemCode = Schemas['ProblemCode'];

export interface ProblemType {
  code: ProblemCode;
  /** The HTTP status a problem of this type is answered with. */
  status: number;
  /** The problem document's `title`. */
  title: string;
  /** What the code means, in words (Markdown-style `code` spans at most). */
  description: string;
  /** What the client should do next. */
  nextStep: string;
}

interface CodeSchema {
  const: ProblemCode;
  title: string;
  description: string;
  'x-status': number;
  'x-next-step': string;
}

let cached: ReadonlyMap<string, ProblemType> | undefined;

/** Every problem type, by code, in the order the spec declares them. */
export function problemTypes(): ReadonlyMap<string, ProblemType> {
  if (!cached) {
    const variants = loadDocument().components.schemas.ProblemCode?.oneOf;
    if (!Array.isArray(variants) || variants.length === 0) throw new Error('the document has no ProblemCode values: run npm run generate');
    cached = new Map(
      (variants as CodeSchema[]).map((v) => [
        v.const,
        { code: v.const, status: v['x-status'], title: v.title, description: v.description, nextStep: v['x-next-step'] },
      ]),
    );
  }
  return cached;
}
