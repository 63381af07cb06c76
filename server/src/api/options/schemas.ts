export { optionUpdateSchema } from '@modelgate/shared';
