// The little of Node's API that scratchpad.mts uses, so that it compiles
// with nothing but tsc (no @types/node). With @types/node installed, drop
// this file from tsconfig.json.

declare module 'node:fs' {
  export function readFileSync(path: string, encoding: 'utf8'): string;
  export function writeFileSync(path: string, data: string): void;
  export function renameSync(from: string, to: string): void;
}

// zotext.d.ts names the global AbortSignal (ctx.signal).
interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
}
