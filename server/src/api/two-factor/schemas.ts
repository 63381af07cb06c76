export { secondFactorCodeSchema } from '@modelgate/shared';
