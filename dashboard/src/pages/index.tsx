import type { FunctionComponent } from 'preact';
import type { Schemas } from '../api.ts';
import { AccountPage } from './account.tsx';
import { ActivityPage } from './activity.tsx';
import { DeployPage } from './deploy.tsx';
import { DeploysPage, RecordDeployPage } from './deploys.tsx';
import { HealthPage } from './health.tsx';
import { LogsPage } from './logs.tsx';
import { WebhookPage, WebhooksPage } from './webhooks.tsx';

export interface PageProps {
  workspace: Schemas['Workspace'];
  /** The route's parameters (`:id`). */
  params: Record<string, string>;
  me: Schemas['Me'];
  /** The workspace's own fields changed (settings): the switcher and dates follow. */
  onWorkspaceChanged: () => void;
}

/**
 * Every page of a workspace by its path under `/w/:ws`, tried in order (so `/deploys/new`
 * before `/deploys/:id`). A new page is one line here and one link in app.tsx's SECTIONS.
 */
export const PAGES: { account: FunctionComponent<{ me: Schemas['Me'] }>; workspace: Record<string, FunctionComponent<PageProps>> } = {
  account: AccountPage,
  workspace: {
    '/deploys': DeploysPage,
    '/deploys/new': RecordDeployPage,
    '/deploys/:id': DeployPage,
    '/health': HealthPage,
    '/webhooks': WebhooksPage,
    '/webhooks/:id': WebhookPage,
    '/logs': LogsPage,
    '/activity': ActivityPage,
  },
};
