// The events outbox: domain events written in the transactions that cause them.
export { recordEvent, readEvent, markDispatched, type EventType, type EventData } from './outbox.ts';
export { eventRetention } from './retention.ts';
