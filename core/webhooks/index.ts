// Webhooks: endpoints, signing, fan-out of outbox events, delivery attempts with the retry
// schedule and the pause rule, test events, redelivery, retention.
export { createWebhook, updateWebhook, deleteWebhook, getWebhook, listWebhooks, webhookToApi, openSecrets, resealWebhookSecrets, ROTATION_OVERLAP_MS, type OpenedSecrets } from './webhooks.ts';
export { fanOutEvent, fanOutAndDeliver, deliverMessage, sendTest, redeliver, messageOfAttempt, eventBody, deliverySettings, RESPONSE_TEXT_LIMIT, type DeliverySettings, type DeliveryObserver, type DeliveryOutcome } from './deliver.ts';
export { listDeliveries, getDelivery, deliveryToApi } from './deliveries.ts';
export { signatureHeaders, signingKey, generateSecret, sha256Hex, SECRET_PREFIX } from './signing.ts';
export { headerPairs, assertWebhookUrl, MAX_HEADERS } from './validate.ts';
export { webhookRetention } from './retention.ts';

/** Webhook rows carry their workspace: an operation whose path names a webhook declares `of: "Webhook"` (spec/main.tsp). */
export const WEBHOOK_ROWS = { resource: 'Webhook', table: 'webhooks' } as const;
