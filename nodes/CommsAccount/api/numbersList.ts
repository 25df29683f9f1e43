import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { getConnection } from '../../shared/transport';
import { accountApi, accountApiRequest } from './accountApi';

/**
 * The account's numbers for the "From list" picker. The list is fetched once and kept for a
 * few minutes per credential (the API advises caching it); typing in the search box filters
 * it locally instead of calling the API again.
 */
const CACHE_MS = 5 * 60_000;
const cache = new Map<string, { at: number; numbers: IDataObject[] }>();

async function numbers(ctx: ILoadOptionsFunctions): Promise<IDataObject[]> {
	const { scope } = await getConnection(ctx, accountApi);
	const cached = cache.get(scope);
	if (cached && Date.now() - cached.at < CACHE_MS) return cached.numbers;
	const body = await accountApiRequest(ctx, { method: 'GET', path: '/v1/numbers' });
	const list = Array.isArray(body.numbers) ? (body.numbers as IDataObject[]) : [];
	cache.set(scope, { at: Date.now(), numbers: list });
	return list;
}

/** Whether the number can send SMS: an SMS sender is paired and enabled. */
function canSendSms(number: IDataObject): boolean {
	return Boolean(number.smsNumber) && number.smsEnabled !== false;
}

/**
 * The list entry. What decides whether a number is usable comes first, so that a label the
 * editor cuts off still shows "No SMS" or "SMS disabled".
 */
function numberLabel(number: IDataObject): string {
	const name = `${String(number.label ?? number.phoneDocId)} · ${String(number.voiceNumber ?? '')}`;
	if (!number.smsNumber) return `No SMS · ${name}`;
	if (number.smsEnabled === false) return `SMS disabled · ${name}`;
	return `${name} · SMS ${String(number.smsNumber)}`;
}

async function search(
	ctx: ILoadOptionsFunctions,
	filter: string | undefined,
	wanted: (number: IDataObject) => boolean,
	label: (number: IDataObject) => string = numberLabel,
): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const compact = needle.replace(/[\s()-]/g, '');
	const results = (await numbers(ctx))
		.filter(wanted)
		.filter((number) => {
			if (!needle) return true;
			const text = [number.label, number.phoneDocId, number.voiceNumber, number.smsNumber].map(
				(v) => String(v ?? '').toLowerCase(),
			);
			return text.some((v) => v.includes(needle) || (compact && v.includes(compact)));
		})
		.map((number) => ({ name: label(number), value: String(number.phoneDocId) }));
	return { results };
}

/** SMS Send's entry: the sender first, then the number's label and voice number. */
function smsSenderLabel(number: IDataObject): string {
	return `SMS ${String(number.smsNumber)} · ${String(number.label ?? number.phoneDocId)} · voice ${String(number.voiceNumber ?? '')}`;
}

/** Every number of the account. */
export async function getNumbers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return await search(this, filter, () => true);
}

/** The numbers that can send SMS (SMS Send offers only these). */
export async function getSmsNumbers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	// The SMS sender is what sends, so it comes first, where a cut-off label still shows it.
	return await search(this, filter, canSendSms, smsSenderLabel);
}
