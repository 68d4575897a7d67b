/**
 * The conversation a case runs as, in every loop: the id of its conversation in
 * the store, the `conversationId` its agent is built for, and the first part of
 * each tool call's idempotency key (`case/<tool>:<call id>`).
 */
export const CASE_CONVERSATION = 'case';
