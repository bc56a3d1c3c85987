// zotext.d.ts names the global AbortSignal (ctx.signal), which comes from
// @types/node or the DOM lib. Neither is needed for this much; with
// @types/node installed, drop this file from tsconfig.json.
interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
}
