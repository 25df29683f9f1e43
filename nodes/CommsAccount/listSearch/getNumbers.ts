import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { ACCOUNT_CREDENTIAL, accountApiRequest, getConnection } from '../../shared/transport';

/**
 * The account's numbers for the "From list" picker. The list is fetched once and kept for a
 * few minutes per credential (the API advises caching it); typing in the search box filters
 * it locally instead of calling the API again.
 */
const CACHE_MS = 5 * 60_000;
const cache = new Map<string, { at: number; numbers: IDataObject[] }>();

async function numbers(ctx: ILoadOptionsFunctions): Promise<IDataObject[]> {
	const { scope } = await getConnection(ctx, ACCOUNT_CREDENTIAL);
	const cached = cache.get(scope);
	if (cached && Date.now() - cached.at < CACHE_MS) return cached.numbers;
	const body = await accountApiRequest(ctx, { method: 'GET', path: '/v1/numbers' });
	const list = Array.isArray(body.numbers) ? (body.numbers as IDataObject[]) : [];
	cache.set(scope, { at: Date.now(), numbers: list });
	return list;
}

function label(number: IDataObject): string {
	const sms = number.smsNumber ? (number.smsEnabled === false ? `SMS ${String(number.smsNumber)} (disabled)` : `SMS ${String(number.smsNumber)}`) : 'no SMS';
	return `${String(number.label ?? number.phoneDocId)} · ${String(number.voiceNumber ?? '')} · ${sms}`;
}

export async function getNumbers(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const compact = needle.replace(/[\s()-]/g, '');
	const results = (await numbers(this))
		.filter((number) => {
			if (!needle) return true;
			const text = [number.label, number.phoneDocId, number.voiceNumber, number.smsNumber].map((v) => String(v ?? '').toLowerCase());
			return text.some((v) => v.includes(needle) || (compact && v.includes(compact)));
		})
		.map((number) => ({ name: label(number), value: String(number.phoneDocId) }));
	return { results };
}
