// The events outbox: domain events written in the transactions that cause them.
export { recordEvent, SUBSCRIBABLE_EVENTS, type EventType, type EventData } from './outbox.ts';
export { eventRetention } from './retention.ts';
