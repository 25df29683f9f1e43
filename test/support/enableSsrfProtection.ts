// Imported first by a test file: n8n's SSRF protection reads this when it is first used.
process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
