import { defineConfig, type Options } from 'tsup';

const shared = {
  entry: ['src/index.ts'],
  dts: true,
  sourcemap: true,
  target: 'es2022',
  // The two builds run in parallel, so neither may wipe the folder the other writes into; the
  // build script empties it first instead.
  clean: false,
} satisfies Options;

export default defineConfig([
  // The SDK ships its contracts inside so that it depends on ky and zod only.
  { ...shared, format: ['esm'], noExternal: ['@vss/schema'] },
  // ky is ESM-only: require() cannot load it before Node 20.19, and after that hands esbuild's
  // interop the namespace instead of ky itself. The CommonJS build therefore carries its own copy.
  { ...shared, format: ['cjs'], noExternal: ['@vss/schema', 'ky'] },
]);
