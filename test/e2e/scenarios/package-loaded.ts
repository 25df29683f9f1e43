// The running n8n loaded the whole package: every node package.json names is among the node types
// n8n serves its editor (with the "… Tool" variant n8n makes of each node usable as an AI tool),
// and both credentials among its credential types. An n8n that drops the package (a module that
// does not load on its Node.js, say) serves none of them and says little more in its log.

import { expect } from '../comms.ts';
import type { LiveScenario } from '../rig/live-scenarios.ts';
import { ownerSession } from '../rig/n8n-server.ts';
import { log } from '../rig/proc.ts';
import type { Json } from '../rig/types.ts';
import { packageNodes } from './package-nodes.ts';
import fs from 'node:fs';
import path from 'node:path';

/** GET of one of n8n's type lists, as the signed-in editor asks for it. */
async function typeList(url: string, file: string, cookie: string): Promise<Json[]> {
	const response = await fetch(`${url}/types/${file}`, { headers: { cookie } });
	expect(response.ok, `GET /types/${file} answered ${response.status}`);
	return (await response.json()) as Json[];
}

export function packageLoadedScenario(repo: string): LiveScenario {
	return {
		name: 'n8n loaded every node (and its AI tool) and both credentials of the package',
		async run({ url }) {
			const session = await ownerSession(url);
			const nodes = await typeList(url, 'nodes.json', session.cookie);
			const credentials = await typeList(url, 'credentials.json', session.cookie);
			const served = new Set(nodes.map((node) => node.name));
			const expected = packageNodes(repo).map((node) => node.type);
			const tools = packageNodes(repo)
				.filter((node) => node.description.usableAsTool)
				.map((node) => `${node.type}Tool`);
			const missing = [...expected, ...tools].filter((name) => !served.has(name));
			expect(missing.length === 0, `n8n serves no node type ${missing.join(', ')}`);
			const { n8n } = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
			const credentialNames = new Set(credentials.map((credential) => credential.name));
			const wanted = (n8n.credentials as string[]).map((entry) =>
				path.basename(entry).replace(/\.credentials\.js$/, ''),
			);
			const missingCredentials = wanted.filter(
				(name) => !credentialNames.has(name[0].toLowerCase() + name.slice(1)),
			);
			expect(
				missingCredentials.length === 0,
				`n8n serves no credential type for ${missingCredentials.join(', ')}`,
			);
			log(
				`  n8n serves ${expected.length} nodes, ${tools.length} AI tools and ${wanted.length} credentials of the package`,
			);
		},
	};
}
