import { Conflict, NotFound } from '../../core/platform/index.ts';
import { keyActor } from '../../core/activity/index.ts';
import { keyringFor } from '../../core/secrets/index.ts';
import {
  createWebhook,
  deleteWebhook,
  deliverySettings,
  deliveryToApi,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  messageOfAttempt,
  redeliver as redeliverAttempt,
  sendTest,
  updateWebhook,
  webhookToApi,
} from '../../core/webhooks/index.ts';
import type { Handler } from '../handler-types.ts';

const MANAGE = 'manage webhooks';

export const list: Handler<'Webhooks_list'> = async ({ db, access, query }) => {
  const ids = query.workspace_id ? [(await access.workspace(query.workspace_id)).workspace.id] : await access.workspaceIds();
  return { status: 200, body: { data: await listWebhooks(db, ids) } };
};

export const create: Handler<'Webhooks_create'> = async ({ db, access, body, config }) => {
  await access.workspace(body.workspaceId, 'admin', MANAGE);
  return { status: 201, body: await createWebhook(db, body, { allowPrivateNetwork: config.allowPrivateNetwork, keyring: keyringFor(config) }) };
};

export const get: Handler<'Webhooks_get'> = async ({ db, access, path }) => {
  const w = await getWebhook(db, path.id);
  await access.workspace(w.workspace_id);
  return { status: 200, body: webhookToApi(w) };
};

export const update: Handler<'Webhooks_update'> = async ({ db, access, auth, path, body, config }) => {
  const w = await getWebhook(db, path.id);
  await access.workspace(w.workspace_id, 'admin', MANAGE);
  return { status: 200, body: await updateWebhook(db, w.id, body, { allowPrivateNetwork: config.allowPrivateNetwork, actor: keyActor(auth), keyring: keyringFor(config) }) };
};

export const remove: Handler<'Webhooks_delete'> = async ({ db, access, path }) => {
  const w = await getWebhook(db, path.id);
  await access.workspace(w.workspace_id, 'admin', MANAGE);
  await deleteWebhook(db, w.id);
  return { status: 204 };
};

export const test: Handler<'Webhooks_test'> = async ({ db, access, auth, path, config }) => {
  const w = await getWebhook(db, path.id);
  await access.workspace(w.workspace_id, 'admin', MANAGE);
  const attempt = await sendTest(db, w, deliverySettings(config), keyActor(auth));
  if (!attempt) throw new NotFound(); // deleted while the test was out
  return { status: 200, body: deliveryToApi(attempt) };
};

export const listDeliveriesOf: Handler<'Webhooks_listDeliveries'> = async ({ db, access, path, query }) => {
  const w = await getWebhook(db, path.id);
  await access.workspace(w.workspace_id);
  return { status: 200, body: await listDeliveries(db, w.id, { status: query.status, event: query.event, limit: query.limit, cursor: query.cursor }) };
};

export const getDeliveryOf: Handler<'Webhooks_getDelivery'> = async ({ db, access, path }) => {
  const w = await getWebhook(db, path.id);
  await access.workspace(w.workspace_id);
  return { status: 200, body: await getDelivery(db, w.id, path.deliveryId) };
};

export const redeliver: Handler<'Webhooks_redeliver'> = async ({ db, access, auth, path, config }) => {
  const w = await getWebhook(db, path.id);
  await access.workspace(w.workspace_id, 'admin', MANAGE);
  const found = await messageOfAttempt(db, w.id, path.deliveryId);
  if (!found) throw new NotFound();
  if (!w.active) throw new Conflict('webhook_paused', 'The webhook is paused; set active: true with PUT /v1/webhooks/{id} to redeliver.');
  const attempt = await redeliverAttempt(db, w, found.message, deliverySettings(config), keyActor(auth));
  if (!attempt) throw new NotFound(); // deleted while the attempt was out
  return { status: 201, body: deliveryToApi(attempt) };
};
