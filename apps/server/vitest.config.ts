export { packageTestConfig as default } from '../../vitest.shared';
