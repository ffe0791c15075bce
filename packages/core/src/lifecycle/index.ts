// Public exports of this area, listed by name.
export type { KeyedQueue } from './keyed-queue.js';
export { createKeyedQueue } from './keyed-queue.js';
export type {
  DeleteTaskReceipt,
  TaskCompletion,
  TaskLifecycle,
  TaskLifecycleOptions,
} from './task-lifecycle.js';
export { createTaskLifecycle } from './task-lifecycle.js';
export type { StoredTask } from './task-records.js';
export { taskFromRun, timelineOf } from './task-records.js';
