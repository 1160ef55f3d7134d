import type { DomainError, FieldError, ProblemMembers } from './errors.ts';

// The RFC 9457 problem document of docs/api.md#problem-documents, shared by every HTTP listener (the API
// server and the worker's metrics listener) so an error looks the same wherever it comes from.

export interface ProblemDocument extends ProblemMembers {
  /** `/problems/<code>`: the API server serves a page there for every code (server/problem-pages.ts). */
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
}

export function problem(status: number, code: string, title: string, detail: string, errors?: FieldError[], members?: ProblemMembers): ProblemDocument {
  const doc: ProblemDocument = { type: `/problems/${code}`, title, status, detail, code };
  if (errors && errors.length) doc.errors = errors;
  if (members) Object.assign(doc, members);
  return doc;
}

export function problemOf(err: DomainError): ProblemDocument {
  return problem(err.status, err.code, err.title, err.message, err.errors, err.members);
}
