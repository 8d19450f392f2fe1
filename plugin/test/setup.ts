// Obsidian runs plugins in a window; Node has none, so `window` is the global object here.
(globalThis as unknown as { window: typeof globalThis }).window = globalThis;
