export { setupModeSchema, setupSchema } from '@modelgate/shared';
