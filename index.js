// n8n loads nodes and credentials from the paths in package.json's "n8n" field; this entry
// point exists only so the package resolves as a module.
module.exports = {};
