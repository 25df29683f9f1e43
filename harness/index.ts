export {
	resumeWorkflow,
	retryFailedExecution,
	runWorkflow,
	buildWorkflow,
	buildAdditionalData,
	initExpressionEngine,
} from './runWorkflow';
export type { WorkflowJson, RunOptions, WorkflowResult } from './runWorkflow';
export { HarnessNodeTypes, PACKAGE_NAME, credentialTypes } from './nodeTypes';
export { InMemoryCredentialsHelper } from './credentialsHelper';
export { runListSearch } from './listSearch';
export { runCredentialTest } from './credentialTest';
export { CREDENTIAL_REFS, START, singleNodeWorkflow } from './workflows';
export { prepareN8nEnvironment } from './environment';
export { usePublishedPackage } from './package';
export { PollHarness, type PollHarnessOptions, type PollOptions, type PollRun } from './poll';
export {
	WebhookHarness,
	type WebhookCall,
	type WebhookHarnessOptions,
	type WebhookReply,
	type WebhookRequest,
} from './webhook';
// For benchmarks, which run the API's limits on a shorter window: the limiter registry of the
// very node code this harness loads.
export { setSharedLimit } from '../nodes/shared/transport/pacing';
export { limiterScope } from '../nodes/shared/transport';
