/**
 * The one door to libphonenumber-js (its `min` metadata). In the sources and tests this file
 * re-exports the package; in the published build, esbuild bundles the package into this file's
 * place in dist/ (scripts/bundle-vendor.js), once, so the package needs no runtime dependency and
 * every node shares the one copy through ../phoneNumbers.ts.
 */
export {
	getCountries,
	parsePhoneNumberWithError,
	ParseError,
	type CountryCode,
	type PhoneNumber,
} from 'libphonenumber-js/min';
