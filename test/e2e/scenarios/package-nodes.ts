// The package's nodes as n8n reads them (the built files package.json's `n8n` field names), and
// what the editor must show for them, taken from their own descriptions.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ACCOUNT_NODE_TYPE, UNIFIED_NODE } from '../comms.ts';
import { E2eError } from '../rig/proc.ts';
import type { Json } from '../rig/types.ts';

const require = createRequire(import.meta.url);

export interface PackageNode {
	displayName: string;
	type: string;
	version: number;
	description: Json;
}

/** The Comms Unified node's voices, as its own description names them, for the browser to find. */
export function voiceCheck(nodes: PackageNode[]) {
	const node = nodes.find((n) => n.type === UNIFIED_NODE);
	const voice = node?.description.properties.find((p: Json) => p.name === 'voice');
	if (!node || !voice) return undefined;
	return {
		type: node.type,
		name: node.displayName,
		options: voice.options.map((o: Json) => o.name),
	};
}

export function packageNodes(repo: string): PackageNode[] {
	const { name, n8n } = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
	return n8n.nodes.map((entry: string) => {
		const exported: Record<string, unknown> = require(path.join(repo, entry));
		const Node = Object.values(exported).find((value) => typeof value === 'function') as
			(new () => { description: Json }) | undefined;
		if (!Node) throw new E2eError(`${entry} exports no node class`);
		const description = new Node().description;
		const versions: number[] = [].concat(description.defaultVersion ?? description.version ?? 1);
		return {
			displayName: description.displayName,
			type: `${name}.${description.name}`,
			version: Math.max(...versions),
			description,
		};
	});
}

/** The display texts of Comms Account's SMS Send (action, resource, operation, number field), from its description. */
export function sendSmsTexts(nodes: PackageNode[]) {
	const node = nodes.find((n) => n.type === ACCOUNT_NODE_TYPE);
	if (!node) throw new E2eError(`the package has no ${ACCOUNT_NODE_TYPE} node`);
	const { properties } = node.description;
	const shownFor = (property: Json, resource: string, operation?: string) => {
		const show = property.displayOptions?.show || {};
		return (
			(!show.resource || show.resource.includes(resource)) &&
			(!operation || !show.operation || show.operation.includes(operation))
		);
	};
	const resource = properties
		.find((p: Json) => p.name === 'resource')
		.options.find((o: Json) => o.value === 'sms');
	const operation = properties
		.find((p: Json) => p.name === 'operation' && shownFor(p, 'sms'))
		.options.find((o: Json) => o.value === 'send');
	const locator = properties.find(
		(p: Json) =>
			p.type === 'resourceLocator' &&
			p.displayOptions?.show?.operation &&
			shownFor(p, 'sms', 'send'),
	);
	if (!resource || !operation || !locator)
		throw new E2eError(`${ACCOUNT_NODE_TYPE}: no SMS Send with a number list in its description`);
	const sendAndWait = properties
		.find((p: Json) => p.name === 'operation' && shownFor(p, 'sms'))
		.options.find((o: Json) => o.value === 'sendAndWait');
	return {
		node: node.displayName,
		action: operation.action || `${operation.name} ${resource.name}`,
		sendAndWaitAction: sendAndWait?.action,
		resource: resource.name,
		operation: operation.name,
		locator: locator.displayName,
		locatorName: locator.name,
	};
}

/** What a trigger's node editor must show: a polling trigger n8n's Poll Times; a notice of ours, its first sentence. */
export function triggerShows(node: PackageNode): string[] {
	const shows: string[] = [];
	if (node.description.polling) shows.push('Poll Times');
	const notice = node.description.properties.find(
		(p: Json) => p.type === 'notice' && !p.displayOptions,
	);
	if (notice)
		shows.push(
			notice.displayName
				.replace(/<[^>]+>/g, '')
				.split(/[.:]/)[0]
				.trim(),
		);
	return shows;
}
