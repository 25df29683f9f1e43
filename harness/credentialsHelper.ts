/**
 * The credentials helper n8n's engine calls. Credentials are held in memory by type, and
 * `authenticate` applies each credential type's own `authenticate` definition exactly as
 * n8n's CLI helper does: a function is called; a `generic` definition has every key and
 * value resolved as an expression with `$credentials` and assigned into the request.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper } from 'n8n-workflow';
import { Credentials } from 'n8n-core';

export class InMemoryCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly types: Record<string, ICredentialType>,
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	private type(name: string): ICredentialType {
		const type = this.types[name];
		if (!type) throw new Error(`Unknown credential type "${name}"`);
		return type;
	}

	getParentTypes(name: string): string[] {
		const extendsTypes = this.type(name).extends ?? [];
		return extendsTypes.flatMap((parent) => [
			parent,
			...(this.types[parent] ? this.getParentTypes(parent) : []),
		]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incoming: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incoming as IHttpRequestOptions;
		const { authenticate } = this.type(typeName);
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate?.type === 'generic') {
			requestOptions.headers ??= {};
			const resolve = (value: string) =>
				typeof value === 'string' && value.startsWith('=') && workflow && node
					? workflow.expression.getSimpleParameterValue(
							node,
							value,
							'internal',
							{ $credentials: credentials },
							undefined,
							'',
						)
					: value;
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
				for (const [key, value] of Object.entries(outerValue as Record<string, string>)) {
					target[outerKey] ??= {};
					target[outerKey][String(resolve(key))] = resolve(value);
				}
			}
		}
		return requestOptions;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		_node: INode,
		_credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<Credentials> {
		return new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, type);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.data[type];
		if (!data) throw new Error(`No credentials of type "${type}" were given to the test run`);
		return { ...data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.type(type).properties;
	}
}
