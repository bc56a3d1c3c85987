// TypeScript looks for zotext.d.mts beside zotext.mjs; the types live in
// zotext.d.ts.
export * from './zotext.js';
export { default } from './zotext.js';
