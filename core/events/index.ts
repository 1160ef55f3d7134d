// The events outbox: domain events written in the transactions that cause them.
export { recordEvent, readEvent, markDispatched, eventSteps, eventRows, type EventType, type EventData } from './outbox.ts';
export { eventRetention } from './retention.ts';
