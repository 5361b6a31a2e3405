/** elicit/client: safe elicitation handling for hosts built on the SDK v2 Client. */
export {
  type AttachOptions,
  attachElicitation,
  type ElicitClient,
  identityOf,
  type TaskCallOptions,
  type TaskOptions,
  type ToolCallOptions,
} from './attach.ts';
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
  type Policy,
  type ScriptedAnswer,
  type ScriptedOptions,
  scriptedRenderer,
} from './scripted.ts';
export {
  type FormProblem,
  FormSession,
  type FormStart,
  type ReviewRow,
  type SafeText,
  type SubmitResult,
} from './session.ts';
export {
  DEFAULT_TASK_RECEIVER_LIMITS,
  TaskReceiverLimitError,
  type TaskReceiverLimits,
} from './task-receiver.ts';
export {
  DEFAULT_TASK_LIMITS,
  type FollowOptions,
  followTask,
  TASKS_EXTENSION,
  type TaskAnswerer,
  TaskCancelled,
  TaskFailed,
  type TaskInputRequest,
  type TaskLimits,
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
