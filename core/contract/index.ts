// The generated OpenAPI document as data: operations, schemas, enums, limits and the shared ajv.
export {
  loadDocument,
  documentText,
  listOperations,
  type OpenApiDocument,
  type Operation,
  type OperationId,
  type OperationObject,
  type ParameterObject,
  type JsonSchema,
  type Schemas,
  type WorkspaceSource,
  type SignatureSource,
} from './document.ts';
export { createAjv, anchored, type AjvOptions, type ValidateFunction } from './ajv.ts';
export { enumValues, schemaErrors } from './values.ts';
export { toFieldErrors, describeFieldErrors } from './field-errors.ts';
export { problemTypes, type ProblemCode, type ProblemType } from './problem-types.ts';
