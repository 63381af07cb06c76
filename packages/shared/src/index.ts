/**
 * Constants and request schemas shared by the server and the console, so both enforce the same
 * rules and the console's forms speak the API's contract.
 */
export * from './constants.js';
export * from './json.js';
export * from './chats.js';
export * from './schemas/fields.js';
export * from './schemas/envelope.js';
export * from './schemas/accounts.js';
export * from './schemas/channels.js';
export * from './schemas/tokens.js';
export * from './schemas/redemptions.js';
export * from './schemas/subscriptions.js';
export * from './schemas/two-factor.js';
export * from './schemas/audit.js';
export * from './schemas/responses/tokens.js';
export * from './schemas/responses/users.js';
export * from './schemas/responses/two-factor.js';
export * from './schemas/responses/passkeys.js';
export * from './schemas/responses/oauth.js';
export * from './schemas/responses/channels.js';
export * from './schemas/responses/subscriptions.js';
export * from './schemas/responses/topup.js';
export * from './schemas/responses/payments.js';
export * from './schemas/responses/redemptions.js';
export * from './schemas/responses/setup.js';
export * from './schemas/responses/logs.js';
export * from './schemas/responses/task-logs.js';
export * from './schemas/responses/data.js';
export * from './schemas/responses/status.js';
export * from './schemas/responses/options.js';
export * from './schemas/responses/pricing.js';
export * from './schemas/responses/audit.js';
export * from './schemas/responses/log-other.js';
