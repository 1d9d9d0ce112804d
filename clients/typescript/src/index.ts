/**
 * TypeScript client for MemoryHub: retain episodes, recall a cited slice under a hard token budget.
 *
 *     import { MemoryHub, errors } from "memoryhub-client";
 */

export { DEFAULT_URL, MemoryHub, VERSION, retainItem } from "./client.js";
export type { MemoryHubOptions, RecallOptions, RetainOptions, WaitOptions } from "./client.js";
export * as errors from "./errors.js";
export { ERROR_CLASSES, MemoryHubError, RetainBatchFailed, RetainBatchTimeout } from "./errors.js";
export { Portability, chunks } from "./portability.js";
export type { ImportFormat, ImportLine, ImportOptions } from "./portability.js";
export type * from "./resources.js";
export { RETRY_STATUSES, isRepeatable, retryDelayMs } from "./transport.js";
export type { Call, RetryOptions } from "./transport.js";
export type * from "./types.js";
export type { components, operations, paths } from "./schema.js";
