/** elicit/client: safe elicitation handling for hosts built on the SDK v2 Client. */
export {
  type AttachOptions,
  type AttachTaskOptions,
  attachElicitation,
  type ElicitClient,
  identityOf,
  type TaskCallOptions,
  type ToolCallOptions,
} from './attach.ts';
export {
  type FormProblem,
  type FormStart,
  FormState,
  type ReviewRow,
  type SafeText,
  type SubmitResult,
} from './form-state.ts';
export { inert } from './inert.ts';
export { answerInputRequests, completeByDefault } from './mrtr.ts';
export {
  createPipeline,
  ElicitationRefused,
  type ElicitOutcome,
  type Pipeline,
  type PipelineOptions,
  type RequestContext,
} from './pipeline.ts';
export { DEFAULT_RATE_LIMIT, type RateLimit } from './rate-limit.ts';
export {
  DEFAULT_ROOT_LIMITS,
  type Root,
  RootInvalid,
  type RootLimits,
  RootList,
} from './roots.ts';
export {
  attachSampling,
  describeSampling,
  SAMPLING_DECLINED,
  type SampleReply,
  type SamplingOptions,
  type SamplingView,
} from './sampling.ts';
export {
  describeForm,
  describeUrl,
  type ScriptedAnswer,
  type ScriptedOptions,
  type ScriptedPolicy,
  scriptedRenderer,
} from './scripted.ts';
export {
  DEFAULT_TASK_RECEIVER_LIMITS,
  TaskReceiverLimitError,
  type TaskReceiverLimits,
} from './task-receiver.ts';
export {
  DEFAULT_FOLLOW_TASK_LIMITS,
  type FollowOptions,
  type FollowTaskLimits,
  followTask,
  TASKS_EXTENSION,
  type TaskAnswerer,
  TaskCancelled,
  TaskFailed,
  type TaskInputRequest,
  TaskRefused,
  type TaskState,
  type TaskStatus,
  TaskTimeout,
  type TaskWire,
} from './tasks.ts';
export { callToolAsTask, needsTask, type ToolTaskOptions } from './tool-task.ts';
export type {
  ClientEvent,
  FormRequest,
  FormResponse,
  Renderer,
  ServerIdentity,
  UrlRequest,
  UrlResponse,
} from './types.ts';

// Deprecated spellings (CHANGELOG.md), kept for one minor version: they go in 0.3.
import type { AttachTaskOptions } from './attach.ts';
import { FormState } from './form-state.ts';
import type { ScriptedPolicy } from './scripted.ts';
import { DEFAULT_FOLLOW_TASK_LIMITS, type FollowTaskLimits } from './tasks.ts';
/** @deprecated Renamed `FormState` in 0.2 ("session" is an MCP session). */
export const FormSession = FormState;
/** @deprecated Renamed `FormState` in 0.2 ("session" is an MCP session). */
export type FormSession = FormState;
/** @deprecated Renamed `ScriptedPolicy` in 0.2 (elicit/gateway's `Policy` is another thing). */
export type Policy = ScriptedPolicy;
/** @deprecated Renamed `DEFAULT_FOLLOW_TASK_LIMITS` in 0.2 (elicit/server's `DEFAULT_TASK_LIMITS` bounds a server's tasks). */
export const DEFAULT_TASK_LIMITS = DEFAULT_FOLLOW_TASK_LIMITS;
/** @deprecated Renamed `FollowTaskLimits` in 0.2 (elicit/server's `TaskLimits` bounds a server's tasks). */
export type TaskLimits = FollowTaskLimits;
/** @deprecated Renamed `AttachTaskOptions` in 0.2 (elicit/server's `TaskOptions` is createServer's `tasks`). */
export type TaskOptions = AttachTaskOptions;
