import { DomainError } from '../../core/platform/index.ts';

/** Placeholder for operations whose capability has not landed yet: an honest 501, never a fake answer. */
export async function notImplemented(): Promise<never> {
  throw new DomainError(501, 'not_implemented', 'Not implemented', 'This operation is specified but not available yet.');
}
