import type { INodeProperties } from 'n8n-workflow';

/** The number to act from: picked from the account's numbers ("From list", searchable), or typed as an ID. */
export const phoneDocIdLocator: INodeProperties = {
	displayName: 'Phone Number',
	name: 'phoneDocId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The account number to use (its phoneDocId)',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a number...',
			typeOptions: { searchListMethod: 'getNumbers', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 7Jk2mQ9xTzR4pLw8vN3a',
			validation: [
				{ type: 'regex', properties: { regex: '\\S+', errorMessage: 'Enter a phoneDocId' } },
			],
		},
	],
};

/** The same modes for sending SMS: the list offers only numbers that can send SMS. */
export const smsSenderModes = (phoneDocIdLocator.modes ?? []).map((mode) =>
	mode.name === 'list'
		? { ...mode, typeOptions: { ...mode.typeOptions, searchListMethod: 'getSmsNumbers' } }
		: mode,
);

/** A phone number to call or text. */
export function toParameter(description: string): INodeProperties {
	return {
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. +44 7700 900123',
		description: `${description} International form, or national form with the Default Country option`,
	};
}

export const defaultCountryOption: INodeProperties = {
	displayName: 'Default Country',
	name: 'defaultCountry',
	type: 'string',
	default: '',
	placeholder: 'e.g. GB',
	description:
		'Two-letter country code (ISO 3166) for phone numbers typed without a country code, such as "07700 900123". Leave empty to require international numbers (+44…).',
};

export const simplifyParameter: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

/** Return All, and Limit (shown when Return All is off), optionally capped at `maxLimit`. */
export function returnAllAndLimit(maxLimit?: number): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1, ...(maxLimit ? { maxValue: maxLimit } : {}) },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

/** Gives a property set to one operation of one resource. */
export function forOperation(
	resource: string,
	operation: string,
	properties: INodeProperties[],
): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, resource: [resource], operation: [operation] },
		},
	}));
}
