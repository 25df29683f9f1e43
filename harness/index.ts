export { runWorkflow, buildWorkflow, buildAdditionalData, initExpressionEngine } from './runWorkflow';
export type { WorkflowJson, RunOptions, WorkflowResult } from './runWorkflow';
export { HarnessNodeTypes, PACKAGE_NAME, credentialTypes } from './nodeTypes';
export { InMemoryCredentialsHelper } from './credentialsHelper';
export { runListSearch } from './listSearch';
export { runCredentialTest } from './credentialTest';
export { CREDENTIAL_REFS, START, singleNodeWorkflow } from './workflows';
export { prepareN8nEnvironment } from './environment';
