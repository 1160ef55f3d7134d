// Workspaces: one website each, with its team and data.
export { createWorkspace, updateWorkspace, deleteWorkspace, listWorkspaces, workspaceToApi, type WorkspaceInput, type WorkspacePatch } from './workspaces.ts';
export { slugify, SLUG_MAX_LENGTH } from './slug.ts';
export { isIanaTimezone, isBcp47, isIsoCountry } from './validate.ts';
