// n8n-core writes a config file into the user folder on the first node run and needs an
// encryption key; both must be set before anything from n8n loads.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'comms-n8n-'));
}
process.env.N8N_ENCRYPTION_KEY = process.env.N8N_ENCRYPTION_KEY || 'comms-api-test-encryption-key';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
// n8n's logger writes node errors straight to stdout; the tests assert on them instead.
process.env.N8N_LOG_LEVEL = process.env.N8N_LOG_LEVEL || 'silent';
